import request from 'supertest';
import { as, expectError, type Harness } from './harness';
import { eventually, type TestOrg } from './factories';
import { echo, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type WorkflowApi } from './workflow-api';

/**
 * Patterns of an organization's event schemas run on a linear-time engine
 * (src/lib/organization-ajv.ts): a payload sent by a member or by the holder
 * of a resume link cannot stall the process, and a pattern the engine cannot
 * run is refused when the definition is saved.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: echo });
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** What the finding measured: 1.1 to 1.5 s for /healthz at 28 a's on a backtracking engine, doubling with each one. */
const CATASTROPHIC = '^(a+)+$';
/** Generous for a real PostgreSQL and Temporal on two cores; a stall of the old engine at 28 a's is over a second. */
const HEALTHZ_BOUND_MS = 500;

const codeSchema = (pattern: string) => ({ type: 'object', required: ['code'], properties: { code: { type: 'string', pattern } } });
const wait = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.wait', input });

/** /healthz asked again and again until stopped, each answer's time kept. */
function probeHealthz() {
  const latencies: number[] = [];
  let stopped = false;
  let answered: () => void = () => {};
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const res = await request(h.app).get('/healthz');
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
      answered();
    }
  })();
  return {
    latencies,
    worst: () => Math.max(0, ...latencies),
    /** Resolves when the next /healthz answer arrives (one asked during what came before, so a stall shows). */
    nextAnswer: () => new Promise<void>((resolve) => (answered = resolve)),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

test('a catastrophic pattern checks member and resume-link payloads without stalling /healthz, and still refuses what does not match', async () => {
  const { path } = await a.createHook([
    httpStep('notify', { url: `${stub.url}/notify`, method: 'POST', body: { link: '{{ $resume.approval }}' } }),
    wait('approval', { event: { name: 'code', schema: codeSchema(CATASTROPHIC) } }),
    returnStep('answer', { code: '{{ approval.code }}' }),
  ]);
  const call = await request(h.app).post(path).send({});
  expect(call.status).toBe(202);
  const id = call.body.executionId as string;
  await eventually(
    () => a.readExecution(id),
    (e) => e.status === 'waiting',
    20_000,
  );
  const link = new URL((JSON.parse(stub.calls('/notify').at(-1)!.body) as { link: string }).link).pathname;

  // Once before measuring: the first event compiles the schema and warms both routes up.
  const warmUp = { code: 'b' };
  expect((await as(h.app, org.ownerToken).post(`/executions/${id}/events/code`).send(warmUp)).status).toBe(400);
  expect((await request(h.app).post(link).send(warmUp)).status).toBe(400);

  const probe = probeHealthz();
  await probe.nextAnswer();
  const sizes = [20, 24, 28, 32, 40, 40, 1000, 100_000];
  const refused: Array<{ n: number; via: string; status: number; code: string }> = [];
  try {
    for (const n of sizes) {
      // A backtracking engine stalls from about 28 on and never ends at 40: stop at the first stall so the test fails in seconds.
      if (probe.worst() >= HEALTHZ_BOUND_MS) break;
      const payload = { code: `${'a'.repeat(n)}!` };
      const [member, holder] = await Promise.all([
        as(h.app, org.ownerToken).post(`/executions/${id}/events/code`).send(payload),
        request(h.app).post(link).send(payload),
      ]);
      refused.push(
        { n, via: 'member', status: member.status, code: member.body.error?.code },
        { n, via: 'link', status: holder.status, code: holder.body.error?.code },
      );
      if (n === 40) expect(member.body.error.details).toEqual([{ path: 'payload.code', message: `must match pattern "${CATASTROPHIC}"` }]);
      await probe.nextAnswer();
    }
  } finally {
    await probe.stop();
  }

  expect(probe.worst()).toBeLessThan(HEALTHZ_BOUND_MS);
  expect(refused).toEqual(sizes.flatMap((n) => ['member', 'link'].map((via) => ({ n, via, status: 400, code: 'invalid_payload' }))));

  // The pattern still means what it says: a matching payload, by the link (unused so far), resumes the run.
  const matching = await request(h.app).post(link).send({ code: 'aaaa' });
  expect(matching.status).toBe(200);
  expect(matching.body).toEqual({ code: 'aaaa' });
});

test('a pattern the linear-time engine cannot run is refused when the definition is saved, naming its field', async () => {
  const save = (steps: unknown[]) =>
    as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: `patterns-${Date.now()}`, steps });

  const res = await save([
    wait('first', { event: { name: 'a', schema: codeSchema('^(\\w+)-\\1$') } }),
    wait('second', { event: { name: 'b', schema: { type: 'object', patternProperties: { '^(?!internal)': { type: 'string' } } } } }),
    wait('third', { event: { name: 'c', schema: codeSchema(CATASTROPHIC) } }),
  ]);
  expectError(res, 400, 'invalid_definition');
  expect(res.body.error.details).toEqual([
    { path: 'steps.0.input.event.schema.properties.code.pattern', message: expect.stringContaining('backreference') },
    { path: 'steps.1.input.event.schema.patternProperties.^(?!internal)', message: expect.stringContaining('lookahead') },
  ]);

  // What RE2 runs is saved as it is.
  expect((await save([wait('third', { event: { name: 'c', schema: codeSchema(CATASTROPHIC) } })])).status).toBe(201);
});
