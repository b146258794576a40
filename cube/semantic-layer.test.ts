import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import { offlineLayer, ordersSource } from './contract-fixture';
import { CubeQueryError, modelVersion, parseCubeDateRange, type SemanticLayer } from './semantic-layer';

/**
 * The contract of the semantic layer that needs no database: what its meta
 * says of a model, and the SQL it builds for each kind of member. Results, the
 * cache and the queue are pinned against PostgreSQL in
 * test/cube-semantic-layer.integration.test.ts. A Cube upgrade must keep both.
 */

const ds = 'ds_orders';
const m = (member: string) => `${ds}.${member}`;
const context = { organizationId: 'org', modelVersion: 'v1' };
/** Cube's SQL on one line, so fragments can be compared whatever its indentation. */
const oneLine = (sql: string) => sql.replace(/\s+/g, ' ');

let layer: SemanticLayer;
beforeAll(() => (layer = offlineLayer([ordersSource(ds)])));
afterAll(() => layer.shutdown());

describe('meta', () => {
  it("lists the organization's cube with each member's name, title and type; the key is hidden", async () => {
    const { cubes } = await layer.meta(context);
    expect(cubes).toHaveLength(1);
    const [cube] = cubes;
    expect(cube).toMatchObject({ name: ds, title: 'Orders' });
    const brief = (list: typeof cube.measures) => list.filter((x) => x.isVisible !== false).map((x) => [x.name, x.shortTitle ?? x.title, x.type, x.meta]);
    expect(brief(cube.measures)).toEqual([
      [m('count'), 'Count', 'number', undefined],
      [m('amount'), 'Amount', 'number', undefined],
      [m('half'), 'Half', 'number', { calculated: true }],
    ]);
    expect(brief(cube.dimensions)).toEqual([
      [m('city'), 'City', 'string', undefined],
      [m('qty'), 'Quantity', 'number', undefined],
      [m('at'), 'At', 'time', undefined],
      [m('halfRow'), 'Half row', 'number', { calculated: true }],
      [m('rank'), 'Rank', 'number', { window: true }],
    ]);
  });

  it("holds one model per organization's sources", async () => {
    const other = offlineLayer([ordersSource('ds_other')]);
    await expect(other.meta({ organizationId: 'other', modelVersion: 'v1' })).resolves.toMatchObject({ cubes: [{ name: 'ds_other' }] });
    await other.shutdown();
  });
});

describe('sql', () => {
  const FROM = `FROM (SELECT t.*, row_number() OVER (PARTITION BY t."city" ORDER BY t."amount" DESC NULLS LAST, t.__key) AS "rank" FROM analytics."${ds}" t WHERE (t.__expires_at IS NULL OR t.__expires_at > now())) AS "${ds}"`;

  it('measures: count(*), sums, and a calculated measure summing its null-safe expression', async () => {
    const { sql, aliasNameToMember } = await layer.sql(context, { measures: [m('count'), m('amount'), m('half')] });
    expect(oneLine(sql[0])).toBe(
      `SELECT count(*) "${ds}__count", sum("${ds}"."amount") "${ds}__amount", sum(("${ds}"."amount" / NULLIF('2'::numeric, 0))) "${ds}__half" ${FROM} `,
    );
    expect(sql[1]).toEqual([]);
    expect(aliasNameToMember).toEqual({ [`${ds}__count`]: m('count'), [`${ds}__amount`]: m('amount'), [`${ds}__half`]: m('half') });
  });

  it('dimensions (plain, calculated, window) grouped, with a dimension filter as a parameter', async () => {
    const { sql, aliasNameToMember } = await layer.sql(context, {
      measures: [m('count')],
      dimensions: [m('city'), m('halfRow'), m('rank')],
      filters: [{ member: m('city'), operator: 'equals', values: ['Paris'] }],
    });
    expect(oneLine(sql[0])).toBe(
      `SELECT "${ds}"."city" "${ds}__city", ("${ds}"."amount" / NULLIF('2'::numeric, 0)) "${ds}__half_row", "${ds}"."rank" "${ds}__rank", count(*) "${ds}__count" ` +
        `${FROM} WHERE ("${ds}"."city" = $1) GROUP BY 1, 2, 3 ORDER BY 4 DESC`,
    );
    expect(sql[1]).toEqual(['Paris']);
    expect(aliasNameToMember).toMatchObject({ [`${ds}__half_row`]: m('halfRow'), [`${ds}__rank`]: m('rank') });
  });

  it('a time dimension with a granularity: truncated in the query time zone, its date range as UTC instants', async () => {
    const { sql, aliasNameToMember } = await layer.sql(context, {
      measures: [m('count')],
      timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: ['2026-03-01', '2026-03-31'] }],
      timezone: 'Europe/Paris',
    });
    expect(oneLine(sql[0])).toBe(
      `SELECT date_trunc('day', ("${ds}"."at"::timestamptz AT TIME ZONE 'Europe/Paris')) "${ds}__at_day", count(*) "${ds}__count" ` +
        `${FROM} WHERE ("${ds}"."at" >= $1::timestamptz AND "${ds}"."at" <= $2::timestamptz) GROUP BY 1 ORDER BY 1 ASC`,
    );
    expect(sql[1]).toEqual(['2026-02-28T23:00:00.000Z', '2026-03-31T21:59:59.999Z']);
    expect(aliasNameToMember[`${ds}__at_day`]).toBe(m('at.day'));
  });

  it('a measure filter is a HAVING', async () => {
    const { sql } = await layer.sql(context, { measures: [m('count')], filters: [{ member: m('count'), operator: 'gt', values: ['1'] }] });
    expect(oneLine(sql[0])).toBe(`SELECT count(*) "${ds}__count" ${FROM} HAVING (count(*) > $1)`);
    expect(sql[1]).toEqual(['1']);
  });

  it('no row limit unless the query has one', async () => {
    const { sql } = await layer.sql(context, { measures: [m('count')], dimensions: [m('city')], limit: 7 });
    expect(oneLine(sql[0])).toMatch(/ LIMIT 7$/);
    expect(oneLine((await layer.sql(context, { measures: [m('count')], dimensions: [m('city')] })).sql[0])).not.toMatch(/LIMIT/);
  });
});

describe('refusals', () => {
  it('a member the model does not have is refused (400, refused), by load and by sql alike, before any database is reached', async () => {
    for (const ask of [layer.load.bind(layer), layer.sql.bind(layer)]) {
      const err = await ask(context, { measures: [m('nope')] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CubeQueryError);
      expect(err).toMatchObject({ status: 400, refused: true, message: `'nope' not found for path '${m('nope')}'` });
    }
  });
});

describe('parseCubeDateRange', () => {
  it("resolves a phrase as Cube does when it reads a query, and throws Cube's UserError on nonsense", () => {
    expect(parseCubeDateRange('from 2026-03-01 to 2026-03-31', 'Europe/Paris', new Date())).toEqual(['2026-03-01T00:00:00.000', '2026-03-31T23:59:59.999']);
    // Relative phrases are not pinned here: 0.35 resolves `today`, `last 7 days` and the like against the real clock, not `now`.
    expect(() => parseCubeDateRange('whenever', 'UTC', new Date())).toThrow("Can't parse date: 'whenever'");
  });
});

describe('modelVersion', () => {
  it('changes when a source changes, is added or removed', () => {
    const s = (id: string, at: number) => ({ id, updatedAt: new Date(at) }) as AnalyticsSource;
    const base = modelVersion([s('a', 1), s('b', 2)]);
    expect(modelVersion([s('a', 1), s('b', 2)])).toBe(base);
    expect(modelVersion([s('a', 1), s('b', 3)])).not.toBe(base);
    expect(modelVersion([s('a', 1)])).not.toBe(base);
    expect(modelVersion([s('a', 1), s('b', 2), s('c', 0)])).not.toBe(base);
  });
});
