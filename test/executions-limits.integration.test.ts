import Ajv2020 from 'ajv/dist/2020';
import request from 'supertest';
import { ExecutionValueSizes1763800001200 } from '../migrations/1763800001200-ExecutionValueSizes';
import { newId } from '../src/ids';
import { as, expectError, startHarness, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { returnStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';
import { createTestOrg, type TestOrg } from './factories';

// Lists and single reads of executions stay small however large the runs' values are.

/** Where a step value too large to inline is read (the value itself is null). */
interface Omitted {
  bytes: number;
  href: string;
}

/** An input of about `size` bytes: a big string under `blob`, plus small keys. */
const bigInput = (size: number, n: number) => ({ blob: 'x'.repeat(size), n, tag: 'big' });

/** A JSON value of about `size` bytes. */
const bigValue = (size: number) => ({ items: Array.from({ length: size / 100 }, (_, i) => ({ i, text: 'y'.repeat(90) })) });

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
const stubAnswer = bigValue(300 * 1024);

beforeAll(async () => {
  stub = await startHttpStub();
  stub.on('/big', reply(200, stubAnswer));
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** The OpenAPI component `name`, compiled to validate real answers against. */
async function documented(app: Harness['app'], name: string) {
  const doc = (await request(app).get('/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'https://flowbase.test/openapi.json', components: { schemas: doc.components.schemas } });
  return ajv.compile({ $ref: `https://flowbase.test/openapi.json#/components/schemas/${name}` });
}

describe('listing runs with large inputs', () => {
  const size = 900 * 1024;
  const runs = 4;
  let wf: { id: string };
  let ids: string[];

  beforeAll(async () => {
    wf = await a.createWorkflow([returnStep('answer', { ok: true })]);
    ids = [];
    for (let n = 0; n < runs; n++) ids.push((await a.runAndWait(wf.id, bigInput(size, n))).id);
  });

  test('limit=1000 answers summaries instead of inputs, in a response far smaller than the inputs', async () => {
    const res = await as(h.app, org.ownerToken).get('/executions?limit=1000');
    expect(res.status).toBe(200);
    const listed = res.body.data.filter((e: { workflowId: string }) => e.workflowId === wf.id);
    expect(listed.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    for (const e of listed) {
      expect(e).not.toHaveProperty('input');
      expect(e.inputSummary).toEqual({ bytes: expect.any(Number), keyCount: 3, keys: ['n', 'tag', 'blob'] });
      // PostgreSQL's text of a value: the compact JSON plus a space after each separator.
      const compact = Buffer.byteLength(JSON.stringify(bigInput(size, 0)));
      expect(e.inputSummary.bytes).toBeGreaterThanOrEqual(compact);
      expect(e.inputSummary.bytes).toBeLessThan(compact + 10);
    }
    const inputsTotal = runs * size;
    expect(Buffer.byteLength(res.text)).toBeLessThan(2_000 * res.body.data.length);
    expect(Buffer.byteLength(res.text)).toBeLessThan(inputsTotal / 100);
  });

  test('the summary keys are the first of the input as the single read shows it, bounded in number and length', async () => {
    const long = 'k'.repeat(200);
    const input = Object.fromEntries([...Array.from({ length: 14 }, (_, i) => [`key_${String(i).padStart(2, '0')}`, i]), [long, 'v']]);
    const ran = await a.runAndWait(wf.id, input);
    const full = await a.readExecution(ran.id);
    expect(full.input).toEqual(input);
    const listed = (await a.listExecutions({ workflowId: wf.id, limit: '1' })).data[0] as unknown as {
      id: string;
      inputSummary: { keyCount: number; keys: string[] };
    };
    expect(listed.id).toBe(ran.id);
    expect(listed.inputSummary.keyCount).toBe(15);
    expect(listed.inputSummary.keys).toEqual(
      Object.keys(full.input)
        .slice(0, 10)
        .map((k) => k.slice(0, 64)),
    );
  });

  test('the single read still has the full input', async () => {
    const e = await a.readExecution(ids[0]);
    expect(e.input).toEqual(bigInput(size, 0));
  });

  test('list entries match the documented ExecutionListItem', async () => {
    const validate = await documented(h.app, 'ExecutionListItem');
    const { data } = await a.listExecutions({ workflowId: wf.id });
    for (const e of data) expect({ valid: validate(e), errors: validate.errors }).toEqual({ valid: true, errors: null });
    expect(validate({ ...data[0], inputSummary: { bytes: 1 } })).toBe(false);
    expect((await documented(h.app, 'ExecutionInputSummary'))(null)).toBe(false);
  });
});

describe('steps with values over the inline limit', () => {
  let executionId: string;
  let waited: { steps: Array<{ stepId: string; input: unknown; output: unknown }> };
  const payload = bigValue(200 * 1024);

  beforeAll(async () => {
    const wf = await a.createWorkflow([
      { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/big` } },
      { stepId: 'send', stepType: 'core.http', input: { url: `${stub.url}/echo`, method: 'POST', body: '{{ initial.payload }}' } },
      returnStep('answer', { fine: true }),
    ]);
    const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: { payload }, wait: true });
    expect(res.status).toBe(200);
    waited = res.body;
    executionId = res.body.id;
  });

  test('the single read carries references for large values and inlines the rest', async () => {
    const res = await as(h.app, org.ownerToken).get(`/executions/${executionId}`);
    expect(res.status).toBe(200);
    const fetch = stepOf(res.body, 'fetch');
    expect(fetch.input).toMatchObject({ method: 'GET', url: `${stub.url}/big` });
    expect(fetch.output).toBeNull();
    expect(fetch.omitted).toEqual({ output: { bytes: expect.any(Number), href: `/executions/${executionId}/steps/fetch/output` } });
    expect(fetch.omitted!.output!.bytes).toBeGreaterThan(2 * 300 * 1024);
    const send = stepOf(res.body, 'send');
    expect(send.input).toBeNull();
    expect(send.omitted).toEqual({
      input: { bytes: expect.any(Number), href: `/executions/${executionId}/steps/send/input` },
      output: { bytes: expect.any(Number), href: `/executions/${executionId}/steps/send/output` },
    });
    expect(stepOf(res.body, 'answer').output).toEqual({ statusCode: 200, body: { fine: true } });
    expect(stepOf(res.body, 'answer')).not.toHaveProperty('omitted');
    // The run's own input (the payload) is inlined; the steps add little beyond it.
    expect(Buffer.byteLength(res.text)).toBeLessThan(Buffer.byteLength(JSON.stringify({ payload })) + 16 * 1024);
    // A run answered with wait shows its steps the same way.
    expect(stepOf(waited as never, 'fetch').omitted).toEqual(fetch.omitted);
  });

  test("a reference's route answers the full value, as many bytes as it said", async () => {
    const e = await a.readExecution(executionId);
    const ref = stepOf(e, 'fetch').omitted!.output as Omitted;
    const res = await as(h.app, org.ownerToken).get(ref.href);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ status: 200, body: stubAnswer });
    expect(Buffer.byteLength(res.text)).toBe(ref.bytes);

    const input = await as(h.app, org.ownerToken).get(stepOf(e, 'send').omitted!.input!.href);
    expect(input.status).toBe(200);
    expect(input.body).toMatchObject({ method: 'POST', url: `${stub.url}/echo`, body: payload });
  });

  test('the routes also answer values small enough to inline, and null for a value the step never had', async () => {
    const res = await as(h.app, org.tokens.viewer).get(`/executions/${executionId}/steps/answer/output`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ statusCode: 200, body: { fine: true } });

    const at = new Date();
    const row = {
      stepId: 'nothing',
      stepType: 'core.http',
      seq: 99,
      status: 'failed' as const,
      attempt: 1,
      input: undefined,
      output: undefined,
      error: 'x',
      startedAt: at,
      finishedAt: at,
    };
    await h.services.executionsRepository.recordStep(org.organizationId, executionId, row);
    const none = await as(h.app, org.ownerToken).get(`/executions/${executionId}/steps/nothing/output`);
    expect(none.status).toBe(200);
    expect(none.text).toBe('null');
  });

  test('an unknown step or execution is 404', async () => {
    expectError(await as(h.app, org.ownerToken).get(`/executions/${executionId}/steps/nope/output`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).get(`/executions/no-such-execution/steps/fetch/input`), 404, 'not_found');
  });

  test('another organization gets 404 on both routes', async () => {
    const stranger = await createTestOrg(h.services);
    for (const part of ['input', 'output']) {
      expectError(await as(h.app, stranger.ownerToken).get(`/executions/${executionId}/steps/fetch/${part}`), 404, 'not_found');
    }
  });

  test('the execution matches the documented Execution schema', async () => {
    const validate = await documented(h.app, 'Execution');
    const e = await a.readExecution(executionId);
    expect({ valid: validate(e), errors: validate.errors }).toEqual({ valid: true, errors: null });
  });
});

describe('many steps each under the inline limit', () => {
  test('a read inlines values in step order up to its budget; the rest are references, and their routes answer them', async () => {
    // About 120 KiB of output each (the text, parsed body and raw text): under the per-value limit; 40 of them pass 4 MiB.
    stub.on('/medium', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('m'.repeat(60 * 1024)));
    const steps = Array.from({ length: 40 }, (_, i) => ({ stepId: `part${i}`, stepType: 'core.http', input: { url: `${stub.url}/medium` } }));
    const wf = await a.createWorkflow([...steps, returnStep('answer', { done: true })]);
    const run = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ wait: true });
    expect(run.status).toBe(200);
    const res = await as(h.app, org.ownerToken).get(`/executions/${run.body.id}`);
    expect(res.status).toBe(200);
    const omitted = res.body.steps.map((step: { omitted?: { output?: Omitted } }) => step.omitted?.output);
    const firstReference = omitted.findIndex((o: Omitted | undefined) => o !== undefined);
    expect(firstReference).toBeGreaterThan(25);
    expect(firstReference).toBeLessThan(40);
    // Once the budget is spent, every later value is a reference, however small.
    for (const [i, reference] of omitted.entries()) {
      expect(reference !== undefined).toBe(i >= firstReference);
      if (reference) expect(res.body.steps[i].output).toBeNull();
    }
    expect(Buffer.byteLength(res.text)).toBeLessThan(4.5 * 1024 * 1024);
    const last = await as(h.app, org.ownerToken).get(omitted[40].href);
    expect(last.body).toEqual({ statusCode: 200, body: { done: true } });
  });
});

describe('the migration on rows written before it', () => {
  let iso: Harness;
  let other: TestOrg;
  const migration = new ExecutionValueSizes1763800001200();
  const old = newId();
  const big = bigValue(200 * 1024);

  beforeAll(async () => {
    // Its own database: the migration is undone and redone there.
    iso = await startHarness({ isolatedDatabase: true });
    other = await createTestOrg(iso.services);
    const q = iso.services.db.createQueryRunner();
    try {
      await migration.down(q);
      await insertOldShaped(iso, other.organizationId, old, { b: 'x'.repeat(1000), a: 1 });
      await migration.up(q);
    } finally {
      await q.release();
    }
  });
  afterAll(() => iso?.close());

  /** An execution and two steps as the service wrote them before the size columns existed. */
  async function insertOldShaped(harness: Harness, organizationId: string, id: string, input: Record<string, unknown>) {
    await harness.services.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, finished_at)
       VALUES ($1, $2, $3, 'old', 1, 'api', 'completed', $4, now())`,
      [id, organizationId, newId(), JSON.stringify(input)],
    );
    await harness.services.db.query(
      `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, input, output, started_at, finished_at)
       VALUES ($1, 'large', 'core.http', 0, 'completed', 1, '{"url": "u"}', $2, now(), now()),
              ($1, 'small', 'core.return', 1, 'completed', 1, NULL, '{"ok": true}', now(), now())`,
      [id, JSON.stringify(big)],
    );
  }

  test('backfills the list summary', async () => {
    const res = await as(iso.app, other.ownerToken).get('/executions');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: old, inputSummary: { bytes: expect.any(Number), keyCount: 2, keys: ['a', 'b'] } })]);
    expect(res.body.data[0]).not.toHaveProperty('input');
    expect(res.body.data[0].inputSummary.bytes).toBe(Buffer.byteLength('{"a": 1, "b": ""}') + 1000);
  });

  test('step records written before it are measured when read: the large output is a reference, the rest inline', async () => {
    const e = (await as(iso.app, other.ownerToken).get(`/executions/${old}`)).body;
    const large = stepOf(e, 'large');
    expect(large.input).toEqual({ url: 'u' });
    expect(large.output).toBeNull();
    expect(large.omitted?.output).toMatchObject({ href: `/executions/${old}/steps/large/output` });
    const full = await as(iso.app, other.ownerToken).get(large.omitted!.output!.href);
    expect(full.body).toEqual(big);
    expect(Buffer.byteLength(full.text)).toBe(large.omitted!.output!.bytes);
    expect(stepOf(e, 'small')).toMatchObject({ input: null, output: { ok: true } });
    // Not backfilled (the migration stays quick on a large table): the read measured them.
    const [sizes] = await iso.services.db.query(`SELECT input_bytes, output_bytes FROM execution_steps WHERE execution_id = $1 AND step_id = 'small'`, [old]);
    expect(sizes).toEqual({ input_bytes: null, output_bytes: null });
  });

  test('rows an older version writes after it (mid-upgrade) are read safely', async () => {
    const late = newId();
    await insertOldShaped(iso, other.organizationId, late, { z: 1 });
    const listed = (await as(iso.app, other.ownerToken).get('/executions')).body.data.find((e: { id: string }) => e.id === late);
    expect(listed).toMatchObject({ inputSummary: null });
    expect(listed).not.toHaveProperty('input');
    const e = (await as(iso.app, other.ownerToken).get(`/executions/${late}`)).body;
    expect(stepOf(e, 'large').omitted).toMatchObject({ output: { bytes: expect.any(Number) } });
  });
});
