import request from 'supertest';
import { as, expectError, type Harness } from './harness';
import { eventually, type TestOrg, uniqueName } from './factories';
import { echo, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, stepOf, type Execution, type WorkflowApi } from './workflow-api';

/**
 * What callers send to a run's waits, tried as an outsider holding a resume
 * link and as a member, on the real PostgreSQL and Temporal (issue 37): it is
 * data (finding 3), a wait takes one of any number sent at once (5), its
 * schema checks it in bounded time (4: patterns on a linear-time engine,
 * src/lib/organization-ajv.ts), and its size is bounded alike on both routes.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let environment: string;
const SECRET = `sk-live-${uniqueName('secret')}`;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: echo });
  ({ h, org, a } = await startWorkflowHarness(stub));
  environment = await a.createEnvironment({ SECRET });
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const wait = (stepId: string, event: string) => ({ stepId, stepType: 'core.wait', input: { event: { name: event }, timeoutSeconds: 3600 } });
const set = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });

/**
 * Every internal reference or marker the code has known, as a caller could
 * write it: the workflow's references to recorded outputs and loop items
 * (old and new spellings), the API's stand-in for a large value. `mk` is a
 * step whose output is sealed (it holds a secret).
 */
const MARKERS: Record<string, object> = {
  offloaded: { $offloaded: { stepId: 'mk' } },
  offloadedBeside: { approved: true, $offloaded: { stepId: 'mk' } },
  loopItem: { $loopItem: { stepId: 'each', index: 0 } },
  loopIndex: { $loopItem: { stepId: 'each', index: 0, indexOnly: true } },
  record: { record: 'mk' },
  refs: { refs: { mk: { record: 'mk' } } },
  kept: { kept: 'record', bytes: 20 },
  omitted: { $omitted: { part: 'output', bytes: 10, href: '/connections' } },
};

/** Posts `payload` to a run's resume link: the link is the last one the stub received for step `stepId`. */
function linkFor(stepId: string): string {
  const sent = stub.calls(`/links`).map((c) => JSON.parse(c.body) as Record<string, string>);
  const link = sent.reverse().find((body) => body[stepId])?.[stepId];
  if (!link) throw new Error(`no resume link of ${stepId} was sent`);
  return new URL(link).pathname;
}

/**
 * The run once it has ended. Not awaitEnd: a run that took its event reads `waiting` until the wait's end
 * is recorded, a moment after the event was accepted.
 */
const ended = (executionId: string): Promise<Execution> =>
  eventually(
    () => a.readExecution(executionId),
    (e) => e.status !== 'running' && e.status !== 'waiting',
    30_000,
  );

async function waitingAt(executionId: string, stepId: string): Promise<Execution> {
  return eventually(
    () => a.readExecution(executionId),
    (e) => e.status === 'waiting' && e.waiting?.[0]?.stepId === stepId,
    20_000,
  );
}

describe('payloads are data', () => {
  test('every marker, in a webhook body, an event, a resume payload, a loop item, a data store value and replay outputs, comes back as sent; no secret does', async () => {
    const table = uniqueName('markers');
    const { path } = await a.createHook(
      [
        set('mk', { token: 'Bearer {{ $env.SECRET }}' }),
        httpStep('notify', { url: `${stub.url}/links`, method: 'POST', body: { byApi: '{{ $resume.byApi }}', byLink: '{{ $resume.byLink }}' } }),
        wait('byApi', 'api'),
        wait('byLink', 'link'),
        {
          stepId: 'each',
          stepType: 'core.loop',
          input: { items: '{{ initial.items }}', steps: [set('pick', { item: '{{ item }}' })] },
        },
        { stepId: 'store', stepType: 'data-store.set', input: { tableName: table, key: 'k', value: '{{ initial.stored }}' } },
        { stepId: 'fetch', stepType: 'data-store.get', input: { tableName: table, key: 'k' } },
        returnStep('answer', {
          initial: '{{ initial }}',
          byApi: '{{ byApi }}',
          byLink: '{{ byLink }}',
          items: '{{ each.results }}',
          stored: '{{ fetch.value }}',
          usedSecret: '{{ mk.token | size }}',
        }),
      ],
      { environment },
    );
    // The top level of the event payloads is what a step's output is: where a reference was once recognised.
    const body = { ...MARKERS, items: Object.values(MARKERS), stored: MARKERS.offloadedBeside };
    const started = await request(h.app).post(path).send(body);
    expect(started.status).toBe(202);
    const id = started.body.executionId as string;

    await waitingAt(id, 'byApi');
    const byApi = await as(h.app, org.ownerToken).post(`/executions/${id}/events/api`).send(MARKERS.offloaded);
    expect(byApi.status).toBe(202);
    await waitingAt(id, 'byLink');
    const answered = await request(h.app).post(linkFor('byLink')).send(MARKERS.offloadedBeside);
    expect(answered.status).toBe(200);

    expect(answered.body).toEqual({
      initial: body,
      byApi: MARKERS.offloaded,
      byLink: MARKERS.offloadedBeside,
      // Each item through the loop's body, as sent.
      items: Object.values(MARKERS).map((item) => ({ item })),
      stored: MARKERS.offloadedBeside,
      // The run did read the sealed output where it was named: the secret only ever reaches it by name.
      usedSecret: `Bearer ${SECRET}`.length,
    });
    expect(answered.text).not.toContain(SECRET);
    const run = await ended(id);
    expect(run.status).toBe('completed');
    expect(stepOf(run, 'byApi').output).toEqual(MARKERS.offloaded);
    expect(JSON.stringify(run)).not.toContain(SECRET);

    // A replay given marker-shaped outputs for the steps it reuses reads them as data too.
    const replay = await as(h.app, org.ownerToken)
      .post(`/executions/${id}/replay`)
      .send({ fromStepId: 'answer', outputs: { byApi: MARKERS.offloaded, byLink: MARKERS.loopItem } });
    expect(replay.status).toBe(202);
    const replayed = await ended(replay.body.executionId);
    expect(replayed.status).toBe('completed');
    expect(stepOf(replayed, 'answer').output.body).toMatchObject({ byApi: MARKERS.offloaded, byLink: MARKERS.loopItem });
    expect(JSON.stringify(replayed)).not.toContain(SECRET);
  });

  test("the execution read never puts a marker in a value's place: a recorded value shaped like the API's stand-in stays a value", async () => {
    const { path } = await a.createHook([wait('w', 'go')]);
    const id = (await request(h.app).post(path).send({})).body.executionId as string;
    await waitingAt(id, 'w');
    expect((await as(h.app, org.ownerToken).post(`/executions/${id}/events/go`).send(MARKERS.omitted)).status).toBe(202);
    const run = await ended(id);
    const step = stepOf(run, 'w');
    expect(step.output).toEqual(MARKERS.omitted);
    expect(step).not.toHaveProperty('omitted');
  });
});

describe('one event per wait', () => {
  /** A run parked at `approval`, with its resume link. */
  async function parkedRun(): Promise<{ id: string; link: string }> {
    const { path } = await a.createHook([
      httpStep('notify', { url: `${stub.url}/links`, method: 'POST', body: { approval: '{{ $resume.approval }}' } }),
      wait('approval', 'approved'),
      returnStep('answer', { by: '{{ approval.by }}' }),
    ]);
    const id = (await request(h.app).post(path).send({})).body.executionId as string;
    await waitingAt(id, 'approval');
    return { id, link: linkFor('approval') };
  }

  test('of 10 events raced through the API and the link, exactly one is taken; the others are 409 not_waiting or 404', async () => {
    const { id, link } = await parkedRun();
    const senders = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? as(h.app, org.ownerToken)
            .post(`/executions/${id}/events/approved`)
            .send({ by: `member-${i}` })
        : request(h.app)
            .post(link)
            .send({ by: `link-${i}` }),
    );
    const answers = await Promise.all(senders);
    const taken = answers.filter((r) => r.status === 200 || r.status === 202);
    expect(taken).toHaveLength(1);
    for (const refused of answers.filter((r) => !taken.includes(r))) {
      if (refused.request.url.includes('/resume/')) expect(refused.status).toBe(404);
      else expect(refused.body.error).toMatchObject({ code: 'not_waiting' });
    }
    const run = await ended(id);
    const winner = taken[0].request.url.includes('/resume/') ? taken[0].body.by : stepOf(run, 'approval').output.by;
    expect(stepOf(run, 'approval').output).toEqual({ by: winner });
    expect(stepOf(run, 'answer').output.body).toEqual({ by: winner });
  });

  test('of 10 members sending at once, one is answered 202 and nine 409', async () => {
    const { id } = await parkedRun();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        as(h.app, org.ownerToken)
          .post(`/executions/${id}/events/approved`)
          .send({ by: `member-${i}` }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([202, ...Array(9).fill(409)]);
    const run = await ended(id);
    expect(run.status).toBe('completed');
  });

  test('a resume payload over the event limit is 413, as on the events route, and leaves the link usable', async () => {
    const { id, link } = await parkedRun();
    const big = { by: 'x'.repeat(130 * 1024) };
    const viaLink = await request(h.app).post(link).send(big);
    expect(viaLink.status).toBe(413);
    expect(viaLink.body.error).toMatchObject({ code: 'payload_too_large' });
    const viaApi = await as(h.app, org.ownerToken).post(`/executions/${id}/events/approved`).send(big);
    expect(viaApi.status).toBe(413);
    const taken = await request(h.app).post(link).send({ by: 'ada' });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ by: 'ada' });
  });
});

/** What the finding measured: 1.1 to 1.5 s for /healthz at 28 a's on a backtracking engine, doubling with each one. */
const CATASTROPHIC = '^(a+)+$';
/** Generous for a real PostgreSQL and Temporal on two cores; a backtracking engine stalls for over a second at 28 a's and never ends at 40. */
const HEALTHZ_BOUND_MS = 1000;

const codeSchema = (pattern: string) => ({ type: 'object', required: ['code'], properties: { code: { type: 'string', pattern } } });
const waitFor = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.wait', input });

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

describe('event schemas check in bounded time (finding 4)', () => {
  test('a catastrophic pattern checks member and resume-link payloads without stalling /healthz, and still refuses what does not match', async () => {
    const { path } = await a.createHook([
      httpStep('notify', { url: `${stub.url}/notify`, method: 'POST', body: { link: '{{ $resume.approval }}' } }),
      waitFor('approval', { event: { name: 'code', schema: codeSchema(CATASTROPHIC) } }),
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
      waitFor('first', { event: { name: 'a', schema: codeSchema('^(\\w+)-\\1$') } }),
      waitFor('second', { event: { name: 'b', schema: { type: 'object', patternProperties: { '^(?!internal)': { type: 'string' } } } } }),
      waitFor('third', { event: { name: 'c', schema: codeSchema(CATASTROPHIC) } }),
    ]);
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([
      { path: 'steps.0.input.event.schema.properties.code.pattern', message: expect.stringContaining('backreference') },
      { path: 'steps.1.input.event.schema.patternProperties.^(?!internal)', message: expect.stringContaining('lookahead') },
    ]);

    // What RE2 runs is saved as it is.
    expect((await save([waitFor('third', { event: { name: 'c', schema: codeSchema(CATASTROPHIC) } })])).status).toBe(201);
  });
});
