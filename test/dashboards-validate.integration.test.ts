import { as, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';
import { createSalesSource } from './dashboard-fixtures';

/**
 * POST /dashboards/validate against the organization's real sources and the
 * metadata Cube compiles for them: always 200, `ok: false` for anything
 * wrong or malformed, hints from the real field names, nothing saved.
 */

let h: Harness;
let org: TestOrg;
let other: TestOrg;
let source: { id: string; ds: string };
let othersSource: { id: string; ds: string };

type Json = Record<string, any>;
type Result = { ok: boolean; errors: Json[]; warnings: Json[] };

async function makeSource(owner: TestOrg): Promise<{ id: string; ds: string }> {
  const created = await createSalesSource(h.app, owner);
  return { id: created.id, ds: created.servingRelation };
}

/** JSON text sent as it is: top-level null, numbers and strings, and nesting too deep for a client to serialize. */
class RawJson {
  constructor(readonly text: string) {}
}
const raw = (text: string) => new RawJson(text);

/** Sends `body` as JSON text and expects 200 with a result. */
async function validate(body: unknown, token = org.ownerToken): Promise<Result> {
  const text = body instanceof RawJson ? body.text : JSON.stringify(body);
  const res = await as(h.app, token).post('/dashboards/validate').set('Content-Type', 'application/json').send(text);
  expectStatus(res, 200);
  expect(typeof res.body.ok).toBe('boolean');
  return res.body as Result;
}

const widget = (queryConfig: Json, extra: Json = {}) => ({ title: 'Sales', chartType: 'table', dataSourceId: source.id, queryConfig, ...extra });
const ruleIds = (findings: Json[]) => findings.map((f) => f.ruleId);

beforeAll(async () => {
  h = await startHarness();
  [org, other] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
  [source, othersSource] = await Promise.all([makeSource(org), makeSource(other)]);
});
afterAll(() => h.close());

test('a widget over real fields is ok, with no errors', async () => {
  const result = await validate({
    widgets: [
      widget(
        {
          measures: [`${source.ds}.amount`],
          timeDimensions: [{ dimension: `${source.ds}.at`, granularity: 'day' }],
          timeRange: { type: 'relative', value: 'last 7 days' },
        },
        { chartType: 'line' },
      ),
    ],
  });
  expect(result).toEqual({ ok: true, errors: [], warnings: [] });
});

test('a mistyped field is field-refs with a did-you-mean hint naming the real member', async () => {
  const result = await validate({ widgets: [widget({ measures: [`${source.ds}.amout`] })] });
  expect(result.ok).toBe(false);
  const finding = result.errors.find((f) => f.ruleId === 'field-refs');
  expect(finding).toMatchObject({ severity: 'error', widget: 0, path: 'widgets[0].queryConfig.measures[0]' });
  expect(finding!.message).toContain(`did you mean "${source.ds}.amount"?`);
});

test("another organization's source is foreign-source, a made-up id unknown-source; neither shows the other organization's fields", async () => {
  const result = await validate({
    widgets: [
      widget({ measures: [`${othersSource.ds}.amount`] }, { dataSourceId: othersSource.id }),
      widget({ measures: [`${source.ds}.amount`] }, { dataSourceId: '00000000-0000-4000-8000-000000000000' }),
    ],
  });
  expect(result.ok).toBe(false);
  expect(result.errors.filter((f) => f.widget === 0).map((f) => f.ruleId)).toContain('foreign-source');
  expect(result.errors.filter((f) => f.widget === 1).map((f) => f.ruleId)).toContain('unknown-source');
  // The other organization's member exists, but not for this caller: unknown, with no hint taken from it.
  expect(JSON.stringify(result)).not.toContain(`${othersSource.ds}.region`);
});

test('chart, time and limit rules over a real source', async () => {
  const result = await validate({
    widgets: [
      widget({ measures: [`${source.ds}.amount`] }, { chartType: 'line' }),
      widget({ dimensions: [`${source.ds}.region`] }, { chartType: 'bar' }),
      widget({ measures: [`${source.ds}.amount`], timeDimensions: [{ dimension: `${source.ds}.at`, granularity: 'fortnight' }] }),
      widget({ measures: [`${source.ds}.amount`], timeRange: { type: 'relative', value: 'the other day' } }),
      widget({ measures: [`${source.ds}.amount`], dimensions: [`${source.ds}.region`], limit: 500 }, { chartType: 'pie' }),
      widget({ measures: [`${source.ds}.amount`] }, { chartType: 'donut' }),
    ],
  });
  const byWidget = (i: number) => [...ruleIds(result.errors.filter((f) => f.widget === i)), ...ruleIds(result.warnings.filter((f) => f.widget === i))];
  expect(byWidget(0)).toContain('chart-time-dimension');
  expect(byWidget(1)).toContain('chart-measures');
  expect(byWidget(2)).toContain('granularity');
  expect(byWidget(3)).toContain('time-range');
  expect(ruleIds(result.warnings.filter((f) => f.widget === 4))).toContain('limit-readable');
  expect(byWidget(5)).toContain('chart-type');
  expect(result.ok).toBe(false);
});

test('twenty malformed bodies each answer 200 with ok false and a finding, never 400 or 500', async () => {
  let deep = '{"member":"x.y","operator":"set"}';
  for (let i = 0; i < 5000; i++) deep = `{"and":[${deep}]}`;
  const malformed: unknown[] = [
    raw('null'),
    raw('42'),
    raw('"widgets"'),
    raw('[]'),
    raw('true'),
    {},
    { widgets: 'all of them' },
    { widgets: [null] },
    { widgets: [{}] },
    { widgets: [{ dataSourceId: source.id, queryConfig: {} }] },
    { widgets: [{ title: 'x', queryConfig: { measures: [`${source.ds}.amount`] } }] },
    { widgets: [{ title: 'x', dataSourceId: source.id }] },
    { widgets: [widget('measures' as unknown as Json)] },
    { widgets: [widget({ measures: `${source.ds}.amount` })] },
    { widgets: [widget({ measures: [42] })] },
    { widgets: [widget({ measures: [`${source.ds}.amount`], filters: [{ member: `${source.ds}.region`, operator: 'resembles', values: ['EU'] }] })] },
    { widgets: [widget({ measures: [`${source.ds}.amount`], limit: -1 })] },
    { widgets: [widget({ measures: [`${source.ds}.amount`], timezone: 'Mars/Olympus' })] },
    { widgets: [widget({ measures: [`${source.ds}.amount`], timeRange: { type: 'absolute', value: 'last 7 days' } })] },
    { widgets: [widget({ measures: [`${source.ds}.amount`] }, { colour: 'blue' })] },
    { widgets: Array.from({ length: 500 }, () => widget({ measures: [`${source.ds}.amount`] })) },
    raw(`{"widgets":[{"title":"deep","chartType":"table","dataSourceId":"${'00000000-0000-4000-8000-000000000000'}","queryConfig":{"filters":[${deep}]}}]}`),
  ];
  expect(malformed.length).toBeGreaterThanOrEqual(20);
  for (const body of malformed) {
    const result = await validate(body);
    expect({ body: String(JSON.stringify(body)).slice(0, 120), ok: result.ok }).toEqual({ body: expect.any(String), ok: false });
    expect(result.errors.length).toBeGreaterThan(0);
    for (const finding of result.errors)
      expect(finding).toEqual(expect.objectContaining({ ruleId: expect.any(String), severity: 'error', message: expect.any(String) }));
  }
});

test('nothing is saved, and a viewer may validate', async () => {
  const before = await as(h.app, org.ownerToken).get('/dashboards');
  const result = await validate({ widgets: [widget({ measures: [`${source.ds}.amount`] })] }, org.tokens.viewer);
  expect(result.ok).toBe(true);
  const after = await as(h.app, org.ownerToken).get('/dashboards');
  expect(after.body).toEqual(before.body);
});
