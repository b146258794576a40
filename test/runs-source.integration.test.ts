import request from 'supertest';
import { inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { ExecutionsRepository } from '../src/executions/executions.repository';
import { as, expectError, expectStatus, type Harness, quietTemporalRuntime, startHarness } from './harness';
import { createTestOrg, eventually, type TestOrg } from './factories';
import { startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, workflowApi } from './workflow-api';

/**
 * Runs as data (issue 41): every organization's built-in sources over its own
 * runs answer what GET /executions lists, through the analytics path, widgets,
 * CSV and the Operations template; another organization sees none of it; the
 * sources are read-only; retention's deletions leave them with the runs.
 * A database of its own: retention prunes every organization's old runs.
 */

type Json = Record<string, any>;
let h: Harness;
let stub: HttpStub;
let a: TestOrg;
let b: TestOrg;
let runs: Json;
let steps: Json;
let okWorkflow: { id: string; name: string };
let failWorkflow: { id: string; name: string };

const owner = (org: TestOrg) => as(h.app, org.ownerToken);

async function builtIns(org: TestOrg): Promise<{ runs: Json; steps: Json }> {
  const res = await owner(org).get('/dashboards/data-sources');
  expectStatus(res, 200);
  const list = res.body as Json[];
  return { runs: list.find((s) => s.type === 'flowbase:runs')!, steps: list.find((s) => s.type === 'flowbase:run-steps')! };
}

async function query(org: TestOrg, q: Json): Promise<Json[]> {
  const res = await owner(org).post('/dashboards/analytics/query').send({ query: q });
  expectStatus(res, 201);
  return res.body.data;
}

/** Rows of `member` → `measure`, as numbers. */
const byMember = (rows: Json[], member: string, measure: string) => Object.fromEntries(rows.map((r) => [r[member], Number(r[measure])]));

/** Seeded runs with known durations and model usage, as the worker records them. */
async function seedUsageRuns(org: TestOrg, workflow: { id: string; name: string }): Promise<void> {
  const usage = (provider: string, model: string, input: number, output: number, cost: number, calls?: number) =>
    JSON.stringify({ provider, model, inputTokens: input, outputTokens: output, cost, ...(calls ? { calls } : {}) });
  // Durations 1, 2, 3 and 4 seconds; one still running (no duration).
  await h.services.db.query(
    `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, started_at, finished_at)
     SELECT 'rs-' || $3 || '-' || g, $1::uuid, $2::uuid, 'renamed since', 1, 'api', 'completed', '{}'::jsonb, now() - interval '1 hour', now() - interval '1 hour' + g * interval '1 second'
       FROM generate_series(1, 4) g
     UNION ALL SELECT 'rs-' || $3 || '-open', $1::uuid, $2::uuid, 'renamed since', 1, 'api', 'running', '{}'::jsonb, now(), NULL`,
    [org.organizationId, workflow.id, org.organizationSuid],
  );
  const at = `now() - interval '1 hour'`;
  await h.services.db.query(
    `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, started_at, finished_at, parent_step_id, sub_seq, usage) VALUES
       ($1, 'classify', 'ai.llm-call', 0, 'completed', 1, ${at}, ${at}, NULL, 0, $2::jsonb),
       ($1, 'helper', 'ai.agent', 1, 'completed', 1, ${at}, ${at}, NULL, 0, $3::jsonb),
       ($1, 'helper.model-1', 'ai.agent.model', 1, 'completed', 1, ${at}, ${at}, 'helper', 1, $4::jsonb),
       ($1, 'helper.model-2', 'ai.agent.model', 1, 'completed', 1, ${at}, ${at}, 'helper', 2, $4::jsonb)`,
    [
      `rs-${org.organizationSuid}-1`,
      usage('openai', 'gpt-4o-mini', 100, 20, 0.000027),
      usage('anthropic', 'claude-3-5-haiku-latest', 300, 40, 0.0004, 2),
      usage('anthropic', 'claude-3-5-haiku-20241022', 150, 20, 0.0002),
    ],
  );
}

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub();
  h = await startHarness({ isolatedDatabase: true });
  await h.startWorker({ httpAllowList: [stub.host] });
  [a, b] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
  ({ runs, steps } = await builtIns(a));
  const api = workflowApi(h.app, a);
  okWorkflow = await api.createWorkflow([returnStep('answer', { ok: true })]);
  failWorkflow = await api.createWorkflow([httpStep('call', { url: `${stub.url}/status/400`, timeoutMs: 10_000 })]);
  for (let i = 0; i < 3; i++) await api.runAndWait(okWorkflow.id);
  for (let i = 0; i < 2; i++) {
    const started = await owner(a).post(`/workflows/${failWorkflow.id}/runs`).send({ input: {} });
    expect(started.status).toBeLessThan(300);
    expect((await api.awaitEnd(started.body.executionId ?? started.body.id)).status).toBe('failed');
  }
  await seedUsageRuns(a, okWorkflow);
  // B has runs of its own: A's sources must not count them.
  const other = workflowApi(h.app, b);
  const bWorkflow = await other.createWorkflow([returnStep('answer', { ok: true })]);
  await other.runAndWait(bWorkflow.id);
}, 180_000);

afterAll(async () => {
  await h?.close();
  await stub?.close();
});

test('every organization has the two built-in sources, read-only, in the list and the analytics meta', async () => {
  expect(runs).toMatchObject({ name: 'Runs', builtIn: true, servingEngine: 'built-in', dataStoreTableName: 'flowbase:runs' });
  expect(steps).toMatchObject({ name: 'Run steps', builtIn: true });
  expect(runs.recordSchema.fields.startedAt).toMatchObject({ type: 'date', timeDimension: true });
  const meta = (await owner(a).get('/dashboards/analytics/meta')).body as Json[];
  const entry = meta.find((m) => m.name === runs.servingRelation)!;
  const names = (list: Json[]) => list.map((m) => m.name.split('.')[1]);
  expect(names(entry.dimensions)).toEqual(expect.arrayContaining(['workflow', 'version', 'trigger', 'mode', 'status', 'failedStep', 'errorCode', 'startedAt']));
  expect(names(entry.measures)).toEqual(expect.arrayContaining(['count', 'failures', 'failureRate', 'durationP50', 'durationP95', 'tokens', 'cost']));
  const stepEntry = meta.find((m) => m.name === steps.servingRelation)!;
  expect(names(stepEntry.dimensions)).toEqual(expect.arrayContaining(['stepType', 'provider', 'model']));
});

test('the runs source counts what GET /executions lists: in all, by status and by workflow', async () => {
  const r = runs.servingRelation;
  const listed = async (filter: Record<string, string>) =>
    (await owner(a).get(`/executions?${new URLSearchParams({ limit: '1', ...filter })}`)).body.total as number;
  const [all] = await query(a, { measures: [`${r}.count`] });
  expect(Number(all[`${r}.count`])).toBe(await listed({}));
  expect(Number(all[`${r}.count`])).toBe(10);

  const statuses = byMember(await query(a, { measures: [`${r}.count`], dimensions: [`${r}.status`] }), `${r}.status`, `${r}.count`);
  expect(statuses).toEqual({ completed: 7, failed: 2, running: 1 });
  for (const [status, n] of Object.entries(statuses)) expect(n).toBe(await listed({ status }));

  const workflows = await query(a, { measures: [`${r}.count`, `${r}.failures`], dimensions: [`${r}.workflowId`, `${r}.workflow`] });
  for (const row of workflows) expect(Number(row[`${r}.count`])).toBe(await listed({ workflowId: row[`${r}.workflowId`] }));
  // The workflow's current name, not the one a seeded run recorded.
  expect(byMember(workflows, `${r}.workflow`, `${r}.failures`)).toEqual({ [okWorkflow.name]: 0, [failWorkflow.name]: 2 });

  const failed = await query(a, { measures: [`${r}.failures`, `${r}.failureRate`], dimensions: [`${r}.failedStep`, `${r}.errorCode`] });
  const stepFailure = failed.find((row) => row[`${r}.failedStep`] === 'call')!;
  // The failed step's failure type, as the run's record keeps it.
  const [failedRun] = (await owner(a).get(`/executions?workflowId=${failWorkflow.id}&status=failed`)).body.data;
  const recorded = (await owner(a).get(`/executions/${failedRun.id}`)).body.error;
  expect(recorded.code).toMatch(/^[A-Za-z]+$/);
  expect(stepFailure).toMatchObject({ [`${r}.errorCode`]: recorded.code });
  expect(Number(stepFailure[`${r}.failures`])).toBe(2);
  expect(Number(stepFailure[`${r}.failureRate`])).toBe(1);
});

test('durations: p50 and p95 over the ended runs, the running one left out', async () => {
  const r = runs.servingRelation;
  const rows = await query(a, {
    measures: [`${r}.durationP50`, `${r}.durationP95`, `${r}.count`],
    filters: [{ member: `${r}.runId`, operator: 'startsWith', values: [`rs-${a.organizationSuid}-`] }],
  });
  expect(Number(rows[0][`${r}.count`])).toBe(5);
  // percentile_cont over 1000, 2000, 3000, 4000 ms.
  expect(Number(rows[0][`${r}.durationP50`])).toBeCloseTo(2500, 3);
  expect(Number(rows[0][`${r}.durationP95`])).toBeCloseTo(3850, 3);
});

test("model usage: the run's totals count an agent's calls once, and by model each call is counted under its model", async () => {
  const r = runs.servingRelation;
  const run = await owner(a).get(`/executions/rs-${a.organizationSuid}-1`);
  expectStatus(run, 200);
  const [totals] = await query(a, {
    measures: [`${r}.inputTokens`, `${r}.outputTokens`, `${r}.cost`],
    filters: [{ member: `${r}.runId`, operator: 'equals', values: [`rs-${a.organizationSuid}-1`] }],
  });
  expect(Number(totals[`${r}.inputTokens`])).toBe(run.body.usage.inputTokens);
  expect(Number(totals[`${r}.outputTokens`])).toBe(run.body.usage.outputTokens);
  expect(Number(totals[`${r}.cost`])).toBeCloseTo(run.body.usage.cost, 9);

  const s = steps.servingRelation;
  const byModel = await query(a, {
    measures: [`${s}.tokens`, `${s}.cost`],
    dimensions: [`${s}.provider`, `${s}.model`],
    filters: [{ member: `${s}.model`, operator: 'set' }],
  });
  expect(byMember(byModel, `${s}.model`, `${s}.tokens`)).toEqual({ 'gpt-4o-mini': 120, 'claude-3-5-haiku-20241022': 340 });
  const cost = byMember(byModel, `${s}.model`, `${s}.cost`);
  expect(cost['gpt-4o-mini']).toBeCloseTo(0.000027, 9);
  expect(cost['claude-3-5-haiku-20241022']).toBeCloseTo(0.0004, 9);
  const [stepCount] = await query(a, {
    measures: [`${s}.count`],
    filters: [{ member: `${s}.runId`, operator: 'equals', values: [`rs-${a.organizationSuid}-1`] }],
  });
  expect(Number(stepCount[`${s}.count`])).toBe(4);
});

test("another organization sees none of A's runs, and cannot name A's sources", async () => {
  const mine = await builtIns(b);
  expect(mine.runs.id).not.toBe(runs.id);
  const [row] = await query(b, { measures: [`${mine.runs.servingRelation}.count`] });
  expect(Number(row[`${mine.runs.servingRelation}.count`])).toBe(1);
  expectError(await owner(b).get(`/dashboards/data-sources/${runs.id}`), 404);
  expectError(
    await owner(b)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [`${runs.servingRelation}.count`] } }),
    400,
    'no_data_source',
  );
});

test('read-only: every change to a built-in source is refused with source_read_only; a share cannot name it', async () => {
  const base = `/dashboards/data-sources/${runs.id}`;
  const refused = [
    await owner(a).patch(base).send({ name: 'Mine now' }),
    await owner(a).delete(base),
    await owner(a).post(`${base}/refresh-schema`),
    await owner(a).post(`${base}/reindex`),
    await owner(a)
      .post(`${base}/calculated-fields`)
      .send({ name: 'double', label: 'Double', type: 'number', formula: 'version * 2', measure: false, expression: { type: 'Identifier', name: 'version' } }),
    await owner(a)
      .post(`${base}/calculated-fields/preview`)
      .send({ expression: { type: 'Identifier', name: 'version' } }),
    await owner(a).post(`${base}/window-dimensions`).send({ name: 'nth', label: 'Nth', function: 'row_number', orderBy: 'startedAt' }),
  ];
  for (const res of refused) expectError(res, 400, 'source_read_only');
  expectError(
    await owner(a).post('/dashboards/shares').send({ tableName: 'flowbase:runs', sharedToOrganizationId: b.organizationId }),
    400,
    'validation_failed',
  );
  expect((await owner(a).get(base)).body).toMatchObject({ name: 'Runs', builtIn: true });
});

test('a widget over the runs source exports its rows as CSV', async () => {
  const r = runs.servingRelation;
  const dashboard = await owner(a).post('/dashboards').send({ name: 'Runs CSV' });
  expectStatus(dashboard, 201);
  const widget = await owner(a)
    .post(`/dashboards/${dashboard.body.id}/widgets`)
    .send({
      title: 'Runs by status',
      chartType: 'table',
      dataSourceId: runs.id,
      queryConfig: { measures: [`${r}.count`], dimensions: [`${r}.status`], order: { [`${r}.status`]: 'asc' } },
    });
  expectStatus(widget, 201);
  const csv = await owner(a).post(`/dashboards/widgets/${widget.body.id}/export-csv`).send({});
  expectStatus(csv, 200);
  expect(csv.headers['content-type']).toContain('text/csv');
  expect(csv.text.trim().split(/\r?\n/)).toEqual(['Status,Runs', 'completed,7', 'failed,2', 'running,1']);
});

test('the Operations template: four widgets laid out, each of whose data loads; a second call makes "Operations 2"', async () => {
  const res = await owner(a).post('/dashboards/templates/operations').send({});
  expectStatus(res, 201);
  expect(res.body.name).toBe('Operations');
  expect(res.body.widgets.map((w: Json) => w.title)).toEqual([
    'Runs per day by status',
    'p95 duration per workflow (ms)',
    'Failures by step',
    'Model cost by model',
  ]);
  expect(res.body.layout).toHaveLength(4);
  const data = await owner(a).post(`/dashboards/${res.body.id}/data`).send({});
  expectStatus(data, 201);
  const entries = (data.body.widgets ?? data.body) as Json[];
  expect(entries).toHaveLength(4);
  for (const entry of entries) {
    expect(entry.error).toBeUndefined();
    expect(entry.data.length).toBeGreaterThan(0);
  }
  // The report PDF prints it: the tiles' titles and the failed step on its axis.
  const pdf = await owner(a)
    .get(`/dashboards/${res.body.id}/report.pdf`)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect(pdf.status).toBe(200);
  const text = (await inspectPdf(pdf.body as Buffer, { draw: false })).pages.map((p) => p.text).join('\n');
  for (const s of ['Operations', 'Runs per day by status', 'Failures by step', 'call', 'gpt-4o-mini']) expect(text).toContain(s);

  const again = await owner(a).post('/dashboards/templates/operations').send({});
  expectStatus(again, 201);
  expect(again.body.name).toBe('Operations 2');
  expectError(await owner(a).post('/dashboards/templates/operations').send({ name: 'Operations' }), 400, 'duplicate_name');
  expectError(await owner(a).post('/dashboards/templates/weekly').send({}), 400, 'validation_failed');
  expectError(await as(h.app, a.tokens.viewer).post('/dashboards/templates/operations').send({}), 403);
});

test("an Operations dashboard exports, and imports into another organization over that organization's own runs", async () => {
  const made = await owner(a).post('/dashboards/templates/operations').send({ name: 'Operations to move' });
  expectStatus(made, 201);
  const exported = await owner(a).get(`/dashboards/${made.body.id}/export`);
  expectStatus(exported, 200);
  const payload = exported.body as Json;
  expect(payload.dataSources.map((s: Json) => s.dataStoreTableName).sort()).toEqual(['flowbase:run-steps', 'flowbase:runs']);
  const theirs = await builtIns(b);
  const mappings = Object.fromEntries(payload.dataSources.map((s: Json) => [s.exportId, s.type === 'flowbase:runs' ? theirs.runs.id : theirs.steps.id]));
  const imported = await owner(b)
    .post('/dashboards/import')
    .send({ ...payload, dataSourceMappings: mappings });
  expectStatus(imported, 201);
  const data = await owner(b).post(`/dashboards/${imported.body.id}/data`).send({});
  expectStatus(data, 201);
  const perDay = data.body.widgets[0];
  expect(perDay.error).toBeUndefined();
  // B's one run, never A's.
  expect(perDay.data.reduce((n: number, row: Json) => n + Number(row[`${theirs.runs.servingRelation}.count`]), 0)).toBe(1);
});

test('retention: a run retention deletes leaves the runs source with it', async () => {
  const r = runs.servingRelation;
  const count = async () => Number((await query(a, { measures: [`${r}.count`] }))[0][`${r}.count`]);
  const before = await count();
  // An ended run older than the team plan keeps runs (30 days).
  await h.services.db.query(
    `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, started_at, finished_at)
     VALUES ($2, $1, gen_random_uuid(), 'old', 1, 'api', 'completed', '{}'::jsonb, now() - interval '40 days', now() - interval '40 days')`,
    [a.organizationId, `rs-${a.organizationSuid}-old`],
  );
  // Cube answers from its cache for up to a second (REFRESH_EVERY), then reads the tables again.
  expect(await eventually(count, (n) => n === before + 1, 10_000)).toBe(before + 1);
  const deleted = await new ExecutionsRepository(h.services.db).pruneExpired({ free: 7, team: 30, business: 90, enterprise: 90 }, 100);
  expect(deleted).toBe(1);
  expect(await eventually(count, (n) => n === before, 10_000)).toBe(before);
  expect((await request(h.app).get('/healthz')).status).toBe(200);
});
