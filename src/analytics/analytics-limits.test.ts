import { CubeQueryError } from '../../cube/semantic-layer';
import { AppError, ValidationError } from '../errors/errors';
import { cubeFailure } from './analytics-limits';
import { AnalyticsQuery } from './analytics.schemas';
import { IN_QUERY_BODY } from './refused-query';

const query = AnalyticsQuery.parse({ measures: ['ds_a.amount2', 'ds_a.amount'], filters: [{ member: 'ds_a.city', operator: 'measureFilter' }] });
const failure = (err: unknown) => {
  try {
    cubeFailure(err, { query, at: IN_QUERY_BODY });
  } catch (thrown) {
    return thrown;
  }
  throw new Error('cubeFailure returned');
};

describe('cubeFailure', () => {
  it("a query Cube refused is 400 invalid_query, placing the member Cube names in the caller's request", () => {
    const err = failure(new CubeQueryError("'city' not found for path 'ds_a.city'", 400, true));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({
      status: 400,
      code: 'invalid_query',
      details: [{ path: 'query.filters.0.member', message: `Cube refused the query at "ds_a.city": 'city' not found for path 'ds_a.city'` }],
    });
    expect((err as Error).message).toContain('query.filters.0.member');
    // The longest name Cube's message holds: "ds_a.amount2", not "ds_a.amount" inside it.
    expect(failure(new CubeQueryError('bad ds_a.amount2', 400, true))).toMatchObject({ details: [{ path: 'query.measures.0' }] });
  });

  it('a refusal naming no member of the query is placed on the query, with Cube’s words cut short', () => {
    const err = failure(new CubeQueryError(`Cube could not build SQL for this query ${'x'.repeat(500)}`, 500, true));
    expect(err).toMatchObject({
      code: 'invalid_query',
      details: [{ path: 'query', message: expect.stringMatching(/^Cube refused the query: Cube could not/) }],
    });
    expect((err as AppError).details![0].message.length).toBeLessThan(360);
  });

  it('a statement timeout is 504 query_timeout', () => {
    expect(failure(new CubeQueryError('canceling statement due to statement timeout', 400))).toMatchObject({ status: 504, code: 'query_timeout' });
  });

  it('anything else is ours: a database error Cube answers as 400, Cube broken, a defect, go on unchanged (a logged 500)', () => {
    for (const err of [
      new CubeQueryError('connect ECONNREFUSED 127.0.0.1:5432', 400),
      new CubeQueryError('relation "analytics.ds_a" does not exist', 400),
      new CubeQueryError('TypeError: boom', 500),
      new TypeError("Cannot read properties of undefined (reading 'data')"),
    ]) {
      const thrown = failure(err);
      expect(thrown).toBe(err);
      expect(thrown).not.toBeInstanceOf(AppError);
    }
  });
});
