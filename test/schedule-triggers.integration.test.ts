import { ScheduleNotFoundError } from '@temporalio/client';
import { ValidationError } from '../src/errors/errors';
import { ScheduleTriggersRepository } from '../src/schedules/schedule-triggers.repository';
import { ScheduleTriggersService } from '../src/schedules/schedule-triggers.service';
import { TriggerSchedules } from '../src/schedules/trigger-schedules';
import { as, expectError, type Harness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type ExecutionSummary, type WorkflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';

/**
 * Schedule triggers on Temporal Schedules: runs appear on their own, pause
 * stops them, the overlap policy is Temporal's, the next run uses the
 * workflow's current version, and no schedule outlives its trigger.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
const MIN_INTERVAL = 2;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { path: req.path }) });
  ({ h, org, a } = await startWorkflowHarness(stub, { configure: (config) => (config.schedules.minIntervalSeconds = MIN_INTERVAL) }));
});
afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

const owner = () => as(h.app, org.ownerToken);

async function createSchedule(workflowId: string, body: Record<string, unknown>) {
  const res = await owner()
    .post(`/workflows/${workflowId}/triggers`)
    .send({ type: 'schedule', name: uniqueName('every'), ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; temporalScheduleId: string };
}

const runsOf = async (triggerId: string): Promise<ExecutionSummary[]> =>
  (await a.listExecutions({ limit: '200' })).data.filter((e) => e.trigger?.id === triggerId);

const describeSchedule = (scheduleId: string) => h.services.temporal.client.schedule.getHandle(scheduleId).describe();

const issuePaths = (res: { body: { error: { details?: Array<{ path: string }> } } }) => (res.body.error.details ?? []).map((d) => d.path);

/** The schedules Temporal holds for a workflow, by the WorkflowName search attribute. */
async function schedulesOf(workflowName: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of h.services.temporal.client.schedule.list({ query: `WorkflowName = "${workflowName}"` })) ids.push(s.scheduleId);
  return ids.sort();
}

/**
 * Proves no refused attempt left a schedule behind: once a schedule created
 * after them is listed (visibility has caught up), it is the only one.
 */
async function expectOnlyScheduleOf(workflowId: string, workflowName: string) {
  const control = await createSchedule(workflowId, { schedule: { cron: '0 3 * * *' }, paused: true });
  const ids = await eventually(
    () => schedulesOf(workflowName),
    (listed) => listed.includes(control.temporalScheduleId),
  );
  expect(ids).toEqual([control.temporalScheduleId]);
  await owner().delete(`/schedule-triggers/${control.id}`);
}

test('an interval schedule starts runs with its static initial; they are listed with their trigger; the read shows next times and last runs', async () => {
  const wf = await a.createWorkflow([httpStep('ping', { url: `${stub.url}/ping/{{ initial.source }}` })]);
  const trigger = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 }, initial: { source: 'clock' } });
  const runs = await eventually(
    () => runsOf(trigger.id),
    (r) => r.filter((e) => e.status === 'completed').length >= 2,
    30_000,
  );
  const run = runs.find((e) => e.status === 'completed')!;
  expect(run).toMatchObject({ mode: 'schedule', trigger: { id: trigger.id, name: trigger.name }, workflowId: wf.id });
  expect((await a.readExecution(run.id)).input).toEqual({ source: 'clock' });
  expect(stub.calls('/ping/clock').length).toBeGreaterThanOrEqual(2);

  const read = await owner().get(`/schedule-triggers/${trigger.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ type: 'schedule', schedule: { intervalSeconds: 2 }, overlapPolicy: 'skip', paused: false });
  // The next times follow the interval: two seconds apart.
  expect(read.body.nextRunTimes.length).toBeGreaterThan(1);
  expect(Date.parse(read.body.nextRunTimes[1]) - Date.parse(read.body.nextRunTimes[0])).toBe(2000);
  expect(read.body.lastRuns.length).toBeGreaterThanOrEqual(2);

  // The Temporal Schedule carries the runs' search attributes.
  const described = await describeSchedule(trigger.temporalScheduleId);
  const attributes = Object.fromEntries(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
  expect(attributes).toMatchObject({ OrganizationId: org.organizationId, WorkflowName: wf.name, TriggerName: trigger.name });
  // Its runs are the trigger's and the mode's, and Temporal summarizes them as every run (no version: each run reads its own).
  expect((await a.listExecutions({ triggerId: trigger.id, mode: 'schedule', status: 'completed' })).data.map((e) => e.id)).toContain(run.id);
  const summary = await (await h.services.temporal.client.workflow.getHandle(run.id).describe()).staticSummary();
  expect(summary).toBe(`${wf.name} (schedule, trigger ${trigger.name}, org ${org.organizationId})`);
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});

test('pause stops new runs, resume starts them again; Temporal shows the pause', async () => {
  const wf = await a.createWorkflow([returnStep('done', { ok: true })]);
  const trigger = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 } });
  // A control on the same 2-second beat that is never paused: its runs are the beats the paused trigger lets go by.
  const control = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 } });
  await eventually(
    () => runsOf(trigger.id),
    (r) => r.length >= 1,
    30_000,
  );
  const paused = await owner().patch(`/schedule-triggers/${trigger.id}`).send({ paused: true });
  expect(paused.status).toBe(200);
  expect(paused.body.paused).toBe(true);
  const atPause = await describeSchedule(trigger.temporalScheduleId);
  expect(atPause.state.paused).toBe(true);
  // When Temporal took the pause, by its own clock; beats are judged by their scheduled times on the same clock.
  const pausedAt = atPause.info.lastUpdatedAt!.getTime();
  const beatsAfterPause = async (scheduleId: string) =>
    (await describeSchedule(scheduleId)).info.recentActions.filter((action) => action.scheduledAt.getTime() > pausedAt);
  // Two beats after the pause started runs of the control ...
  await eventually(
    () => beatsAfterPause(control.temporalScheduleId),
    (beats) => beats.length >= 2,
    30_000,
  );
  await owner().delete(`/schedule-triggers/${control.id}`);
  // ... and none of the paused trigger: no action taken for them, and no run listed beyond the actions Temporal took before the pause.
  const after = await describeSchedule(trigger.temporalScheduleId);
  expect(after.info.recentActions.filter((action) => action.scheduledAt.getTime() > pausedAt)).toEqual([]);
  const before = after.info.numActionsTaken;
  expect(
    (
      await eventually(
        () => runsOf(trigger.id),
        (r) => r.length >= before,
      )
    ).length,
  ).toBe(before);

  const resumed = await owner().patch(`/schedule-triggers/${trigger.id}`).send({ paused: false });
  expect(resumed.body.paused).toBe(false);
  await eventually(
    () => runsOf(trigger.id),
    (r) => r.length > before,
    30_000,
  );
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});

test('overlap: skip never starts a run while one is running; allow_all does', async () => {
  const gate = stub.gate();
  const wf = await a.createWorkflow([httpStep('slow', { url: gate.url, timeoutMs: 120_000 })]);
  const skip = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 }, overlapPolicy: 'skip' });
  const all = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 }, overlapPolicy: 'allow_all' });
  await eventually(
    () => runsOf(all.id),
    (r) => r.filter((e) => e.status === 'running').length >= 3,
    30_000,
  );
  const skipped = await runsOf(skip.id);
  expect(skipped).toHaveLength(1);
  expect(skipped[0].status).toBe('running');
  // Deleting the triggers stops new beats; the gate lets the held runs end.
  await owner().delete(`/schedule-triggers/${skip.id}`);
  await owner().delete(`/schedule-triggers/${all.id}`);
  gate.open();
});

test("the next run uses the workflow's new version; updating the trigger updates its schedule", async () => {
  const wf = await a.createWorkflow([returnStep('done', { v: 1 })], { name: uniqueName('versioned') });
  const trigger = await createSchedule(wf.id, { schedule: { intervalSeconds: 2 } });
  await eventually(
    () => runsOf(trigger.id),
    (r) => r.some((e) => e.workflowVersion === 1),
    30_000,
  );
  const put = await owner()
    .put(`/workflows/${wf.id}`)
    .send({ name: wf.name, steps: [returnStep('done', { v: 2 })] });
  expect(put.status).toBe(200);
  await eventually(
    () => runsOf(trigger.id),
    (r) => r.some((e) => e.workflowVersion === 2 && e.status === 'completed'),
    30_000,
  );

  const updated = await owner()
    .patch(`/schedule-triggers/${trigger.id}`)
    .send({ schedule: { cron: '30 9 * * MON-FRI', timezone: 'Europe/Paris' }, overlapPolicy: 'buffer_one' });
  expect(updated.status).toBe(200);
  expect(updated.body.schedule).toEqual({ cron: '30 9 * * MON-FRI', timezone: 'Europe/Paris' });
  const described = await describeSchedule(trigger.temporalScheduleId);
  expect(described.policies.overlap).toBe('BUFFER_ONE');
  expect(described.spec.timezone).toBe('Europe/Paris');
  // 09:30 in Paris on a weekday, whatever the offset of the day.
  const next = new Date(updated.body.nextRunTimes[0]);
  const paris = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit' }).format(next);
  expect(paris).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:30$/);
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});

test('deleting a trigger, or its workflow, leaves no schedule in Temporal', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const one = await createSchedule(wf.id, { schedule: { cron: '0 3 * * *' } });
  const two = await createSchedule(wf.id, { schedule: { intervalSeconds: 3600 }, paused: true });
  await expect(describeSchedule(one.temporalScheduleId)).resolves.toBeDefined();
  expect((await describeSchedule(two.temporalScheduleId)).state.paused).toBe(true);

  expect((await owner().delete(`/schedule-triggers/${one.id}`)).status).toBe(200);
  await expect(describeSchedule(one.temporalScheduleId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  expectError(await owner().get(`/schedule-triggers/${one.id}`), 404, 'not_found');

  expect((await owner().delete(`/workflows/${wf.id}`)).status).toBe(200);
  await expect(describeSchedule(two.temporalScheduleId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  expectError(await owner().get(`/schedule-triggers/${two.id}`), 404, 'not_found');
});

test('a schedule whose trigger row is gone (deleted behind the API) deletes itself at its next beat, starting no run', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const trigger = await createSchedule(wf.id, { schedule: { cron: '0 3 * * *' }, paused: true });
  await h.services.db.query('DELETE FROM schedule_triggers WHERE id = $1', [trigger.id]);
  await h.services.temporal.client.schedule.getHandle(trigger.temporalScheduleId).trigger();
  await eventually(
    () =>
      describeSchedule(trigger.temporalScheduleId).then(
        () => 'present',
        (err) => (err instanceof ScheduleNotFoundError ? 'gone' : 'error'),
      ),
    (state) => state === 'gone',
    30_000,
  );
  expect(await runsOf(trigger.id)).toEqual([]);
});

test('bad schedules are 400s naming the field; nothing is created', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ schedule: { cron: '0 0 9 * * *' } }, 'schedule.cron'],
    [{ schedule: { cron: 'every day at nine' } }, 'schedule.cron'],
    [{ schedule: { cron: '@daily' } }, 'schedule.cron'],
    [{ schedule: { cron: '61 * * * *' } }, 'schedule.cron'],
    [{ schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
    [{ schedule: { cron: '0 9 * * *', timezone: '+02:00' } }, 'schedule.timezone'],
    [{ schedule: { intervalSeconds: MIN_INTERVAL - 1 } }, 'schedule.intervalSeconds'],
    [{ schedule: { intervalSeconds: 10 }, environment: 'no-such-environment' }, 'environment'],
    [{ schedule: { intervalSeconds: 10 }, overlapPolicy: 'sometimes' }, 'overlapPolicy'],
    [{ schedule: { intervalSeconds: 10 }, catchupWindowSeconds: 1 }, 'catchupWindowSeconds'],
  ];
  for (const [body, path] of cases) {
    const res = await owner()
      .post(`/workflows/${wf.id}/triggers`)
      .send({ type: 'schedule', name: uniqueName('bad'), ...body });
    expectError(res, 400);
    expect({ body, paths: res.body.error.details.map((d: { path: string }) => d.path) }).toEqual({ body, paths: expect.arrayContaining([path]) });
  }
  const listed = await owner().get(`/schedule-triggers?workflowId=${wf.id}`);
  expect(listed.body.total).toBe(0);
  // The webhook body is unchanged: no type means a webhook trigger.
  expect(
    (
      await owner()
        .post(`/workflows/${wf.id}/triggers`)
        .send({ name: uniqueName('hook') })
    ).body,
  ).toMatchObject({ method: 'POST' });
});

test("another organization's schedule trigger is a 404, and its workflow cannot be scheduled", async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const trigger = await createSchedule(wf.id, { schedule: { intervalSeconds: 3600 }, paused: true });
  const other = await createTestOrg(h.services);
  const intruder = () => as(h.app, other.ownerToken);
  expectError(await intruder().get(`/schedule-triggers/${trigger.id}`), 404);
  expectError(await intruder().patch(`/schedule-triggers/${trigger.id}`).send({ paused: false }), 404);
  expectError(await intruder().delete(`/schedule-triggers/${trigger.id}`), 404);
  expectError(
    await intruder()
      .post(`/workflows/${wf.id}/triggers`)
      .send({ type: 'schedule', name: 'mine', schedule: { intervalSeconds: 60 } }),
    404,
  );
  expect((await intruder().get('/schedule-triggers')).body.total).toBe(0);
  expect((await describeSchedule(trigger.temporalScheduleId)).state.paused).toBe(true);
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});

const REFUSED_BY_TEMPORAL: Array<[Record<string, unknown>, string]> = [
  [{ cron: '0 0 L * *' }, 'schedule.cron'],
  [{ cron: '0 0 * * 5L' }, 'schedule.cron'],
  [{ cron: '0 0 ? * *' }, 'schedule.cron'],
  [{ cron: 'H * * * *' }, 'schedule.cron'],
  [{ cron: '0 0 15W * *' }, 'schedule.cron'],
  [{ cron: '0 9 * * SAT-SUN' }, 'schedule.cron'],
  // Temporal takes "#3" for a comment and would fire every Friday: refused here.
  [{ cron: '0 0 * * 5#3' }, 'schedule.cron'],
  [{ cron: '0 9 * * *', timezone: 'Europe/Pariss' }, 'schedule.timezone'],
];

test("what Temporal's scheduler refuses is a 400 invalid_schedule naming the field, never a 500; no row and no schedule are left", async () => {
  const wf = await a.createWorkflow([returnStep('done', {})], { name: uniqueName('refused') });
  for (const [schedule, path] of REFUSED_BY_TEMPORAL) {
    const res = await owner()
      .post(`/workflows/${wf.id}/triggers`)
      .send({ type: 'schedule', name: uniqueName('bad'), schedule });
    expectError(res, 400, 'invalid_schedule');
    expect({ schedule, paths: issuePaths(res) }).toEqual({ schedule, paths: [path] });
  }
  const typo = await owner()
    .post(`/workflows/${wf.id}/triggers`)
    .send({ type: 'schedule', name: uniqueName('bad'), schedule: { cron: '0 9 * * *', timezone: 'europe/pariss' } });
  expect(typo.body.error.details[0].message).toContain('did you mean "Europe/Paris"?');
  expect((await owner().get(`/schedule-triggers?workflowId=${wf.id}`)).body.total).toBe(0);
  await expectOnlyScheduleOf(wf.id, wf.name);
});

test('a refused PATCH changes neither the trigger nor its schedule', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const trigger = await createSchedule(wf.id, { schedule: { cron: '0 3 * * *', timezone: 'Europe/Paris' }, paused: true });
  const before = (await owner().get(`/schedule-triggers/${trigger.id}`)).body;
  for (const [schedule, path] of REFUSED_BY_TEMPORAL) {
    const res = await owner()
      .patch(`/schedule-triggers/${trigger.id}`)
      .send({ schedule, name: uniqueName('renamed') });
    expectError(res, 400, 'invalid_schedule');
    expect({ schedule, paths: issuePaths(res) }).toEqual({ schedule, paths: [path] });
  }
  const after = (await owner().get(`/schedule-triggers/${trigger.id}`)).body;
  expect(after).toEqual(before);
  const described = await describeSchedule(trigger.temporalScheduleId);
  expect(described.spec.timezone).toBe('Europe/Paris');
  expect(described.spec.calendars?.[0].hour).toEqual([{ start: 3, end: 3, step: 1 }]);
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});

test('a time zone in any case is stored, sent to Temporal and answered as its IANA name', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const created = await owner()
    .post(`/workflows/${wf.id}/triggers`)
    .send({ type: 'schedule', name: uniqueName('lower'), schedule: { cron: '0 9 * * *', timezone: 'utc' }, paused: true });
  expect(created.status).toBe(201);
  expect(created.body.schedule).toEqual({ cron: '0 9 * * *', timezone: 'UTC' });
  expect((await describeSchedule(created.body.temporalScheduleId)).spec.timezone).toBe('UTC');

  const patched = await owner()
    .patch(`/schedule-triggers/${created.body.id}`)
    .send({ schedule: { cron: '0 9 * * mon-fri', timezone: 'europe/paris' } });
  expect(patched.status).toBe(200);
  expect(patched.body.schedule).toEqual({ cron: '0 9 * * mon-fri', timezone: 'Europe/Paris' });
  expect((await describeSchedule(created.body.temporalScheduleId)).spec.timezone).toBe('Europe/Paris');
  await owner().delete(`/schedule-triggers/${created.body.id}`);
});

describe("Temporal's refusal is the authority when the service's own check lets a spec through", () => {
  /** The service with its own check switched off, so each spec reaches Temporal as given. */
  const trustingTemporal = () =>
    new ScheduleTriggersService(
      new ScheduleTriggersRepository(h.services.db.manager),
      h.services.workflows,
      h.services.environments,
      new TriggerSchedules(h.services.temporal.client, h.services.config.temporal.taskQueue),
      MIN_INTERVAL,
      (spec) => ({ spec, issues: [] }),
    );
  const refusal = (path: string) =>
    expect.objectContaining({ status: 400, code: 'invalid_schedule', details: [{ path, message: expect.stringMatching(/^(is not an expression|")/) }] });
  const base = { initial: {}, overlapPolicy: 'skip' as const, catchupWindowSeconds: 60, paused: true };

  test('on create: a 400 naming the field, and no row and no schedule left behind', async () => {
    const wf = await a.createWorkflow([returnStep('done', {})], { name: uniqueName('authority') });
    const service = trustingTemporal();
    const create = (schedule: { cron: string; timezone: string }) =>
      service.create(org.organizationId, wf.id, { ...base, type: 'schedule', name: uniqueName('raw'), schedule });
    for (const cron of ['0 0 L * *', '0 0 * * 5L', '0 0 ? * *', 'H * * * *']) {
      const err = await create({ cron, timezone: 'UTC' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toEqual(refusal('schedule.cron'));
    }
    for (const timezone of ['utc', 'europe/paris']) {
      const err = await create({ cron: '0 9 * * *', timezone }).catch((e: unknown) => e);
      expect(err).toEqual(refusal('schedule.timezone'));
    }
    expect((await owner().get(`/schedule-triggers?workflowId=${wf.id}`)).body.total).toBe(0);
    await expectOnlyScheduleOf(wf.id, wf.name);
  });

  test('on update: a 400 naming the field; the row keeps its values and the schedule its spec', async () => {
    const wf = await a.createWorkflow([returnStep('done', {})]);
    const trigger = await createSchedule(wf.id, { schedule: { cron: '0 3 * * *', timezone: 'Europe/Paris' }, paused: true });
    const before = (await owner().get(`/schedule-triggers/${trigger.id}`)).body;
    const service = trustingTemporal();
    const update = (schedule: { cron: string; timezone: string }) =>
      service.update(org.organizationId, trigger.id, { schedule, paused: false }).catch((e: unknown) => e);
    expect(await update({ cron: 'H * * * *', timezone: 'Europe/Paris' })).toEqual(refusal('schedule.cron'));
    expect(await update({ cron: '0 4 * * *', timezone: 'europe/paris' })).toEqual(refusal('schedule.timezone'));
    expect((await owner().get(`/schedule-triggers/${trigger.id}`)).body).toEqual(before);
    const described = await describeSchedule(trigger.temporalScheduleId);
    expect({ timezone: described.spec.timezone, hour: described.spec.calendars?.[0].hour, paused: described.state.paused }).toEqual({
      timezone: 'Europe/Paris',
      hour: [{ start: 3, end: 3, step: 1 }],
      paused: true,
    });
    await owner().delete(`/schedule-triggers/${trigger.id}`);
  });
});

test('a paused trigger lists no next run times; resumed, it lists them again', async () => {
  const wf = await a.createWorkflow([returnStep('done', {})]);
  const trigger = await createSchedule(wf.id, { schedule: { cron: '0 3 * * *' }, paused: true });
  const read = () => owner().get(`/schedule-triggers/${trigger.id}`);
  expect((await read()).body).toMatchObject({ paused: true, nextRunTimes: [] });

  const resumed = await owner().patch(`/schedule-triggers/${trigger.id}`).send({ paused: false });
  expect(resumed.body.paused).toBe(false);
  expect(resumed.body.nextRunTimes).toHaveLength(5);

  const paused = await owner().patch(`/schedule-triggers/${trigger.id}`).send({ paused: true });
  expect(paused.body).toMatchObject({ paused: true, nextRunTimes: [] });
  expect((await read()).body).toMatchObject({ paused: true, nextRunTimes: [] });
  await owner().delete(`/schedule-triggers/${trigger.id}`);
});
