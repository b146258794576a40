import request from 'supertest';
import { ensureRetentionSchedule } from '../src/executions/retention-schedule';
import { PRUNE_EXECUTIONS_WORKFLOW, type PruneExecutionsResult, retentionScheduleId } from '../workflows/retention.types';
import { type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';
import { returnStep, workflowApi } from './workflow-api';

/**
 * Retention: executions older than their organization's plan keeps them are
 * deleted with their step records and sealed values, in bounded batches (one
 * short statement each), by a workflow a Temporal Schedule starts, while new
 * runs go on being written. A database of its own: pruning is global.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ isolatedDatabase: true });
  await h.startWorker();
});
afterAll(() => h?.close());

/** `count` executions of the organization that started `daysAgo` days ago, each with two step records and a sealed answer. */
async function seed(org: TestOrg, prefix: string, count: number, daysAgo: number, status = 'completed'): Promise<void> {
  await h.services.db.query(
    `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, started_at, finished_at)
     SELECT $2 || g, $1, gen_random_uuid(), 'seeded', 1, 'api', $5, '{}'::jsonb,
            now() - make_interval(days => $4) - g * interval '1 second', now() - make_interval(days => $4)
       FROM generate_series(1, $3) g`,
    [org.organizationId, prefix, count, daysAgo, status],
  );
  await h.services.db.query(
    `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, input, output, started_at, finished_at)
     SELECT e.id, s.id, 'core.set', s.seq, 'completed', 1, '{}', '{"v":1}', e.started_at, e.started_at
       FROM executions e, (VALUES ('a', 0), ('b', 1)) s(id, seq) WHERE e.organization_id = $1 AND e.id LIKE $2 || '%'`,
    [org.organizationId, prefix],
  );
  await h.services.db.query(
    `INSERT INTO execution_answers (execution_id, organization_id, sealed, created_at)
     SELECT id, organization_id, 'sealed', now() FROM executions WHERE organization_id = $1 AND id LIKE $2 || '%'`,
    [org.organizationId, prefix],
  );
}

const count = async (sql: string, params: unknown[]) => Number((await h.services.db.query(sql, params))[0].n);
const executionsLike = (org: TestOrg, prefix: string) =>
  count(`SELECT count(*) AS n FROM executions WHERE organization_id = $1 AND id LIKE $2 || '%'`, [org.organizationId, prefix]);

test('deletes what each plan no longer keeps, batch by batch, while new runs are written; the rest stays whole', async () => {
  const [free, team] = await Promise.all([createTestOrg(h.services, 'free'), createTestOrg(h.services, 'team')]);
  // Free keeps 7 days, team 30.
  await seed(free, 'free-old-', 1_150, 10);
  await seed(free, 'free-new-', 20, 2);
  await seed(free, 'free-running-', 3, 40, 'running');
  await seed(team, 'team-kept-', 30, 10);
  await seed(team, 'team-old-', 200, 40);
  // Bulk replays: a completed one past free's 7 days goes; a recent one, and one still running, stay.
  const bulk = (org: TestOrg, daysAgo: number, status: string) =>
    h.services.db.query(
      `INSERT INTO execution_replay_bulks (id, organization_id, workflow_id, request, status, total, created_at)
       VALUES (gen_random_uuid(), $1, gen_random_uuid(), '{}', $3, 0, now() - make_interval(days => $2)) RETURNING id`,
      [org.organizationId, daysAgo, status],
    );
  const [[oldBulk], [newBulk], [runningBulk]] = await Promise.all([bulk(free, 10, 'completed'), bulk(free, 2, 'completed'), bulk(free, 10, 'running')]);

  // New runs of a webhook, written while pruning runs.
  const a = workflowApi(h.app, team);
  const { path } = await a.createHook([returnStep('answer', { ok: '{{ initial.n }}' })]);
  let calls = 0;
  let pruning = true;
  const caller = (async () => {
    const answers: number[] = [];
    while (pruning || calls < 10) answers.push((await request(h.app).post(path).send({ n: ++calls })).status);
    return answers;
  })();
  const result: PruneExecutionsResult = await h.services.temporal.client.workflow.execute(PRUNE_EXECUTIONS_WORKFLOW, {
    taskQueue: h.services.config.temporal.taskQueue,
    workflowId: `prune-test-${Date.now()}`,
    args: [{ batchSize: 100, maxBatches: 50 }],
  });
  pruning = false;
  const answers = await caller;

  // 1,350 due: 14 full batches, the last one short.
  expect(result).toEqual({ deleted: 1_350, batches: 14, more: false });
  expect(await executionsLike(free, 'free-old-')).toBe(0);
  expect(await executionsLike(team, 'team-old-')).toBe(0);
  expect(await executionsLike(free, 'free-new-')).toBe(20);
  expect(await executionsLike(free, 'free-running-')).toBe(3);
  expect(await executionsLike(team, 'team-kept-')).toBe(30);
  // Step records and sealed answers went with their executions; nothing of them is left behind.
  expect(await count(`SELECT count(*) AS n FROM execution_steps s WHERE NOT EXISTS (SELECT FROM executions e WHERE e.id = s.execution_id)`, [])).toBe(0);
  expect(await count(`SELECT count(*) AS n FROM execution_steps WHERE execution_id LIKE 'free-old-%' OR execution_id LIKE 'team-old-%'`, [])).toBe(0);
  expect(await count(`SELECT count(*) AS n FROM execution_answers WHERE execution_id LIKE 'free-old-%'`, [])).toBe(0);
  expect(await count(`SELECT count(*) AS n FROM execution_steps WHERE execution_id LIKE 'team-kept-%'`, [])).toBe(60);
  const bulksLeft = await h.services.db.query(`SELECT id FROM execution_replay_bulks WHERE id = ANY($1) ORDER BY created_at`, [
    [oldBulk.id, newBulk.id, runningBulk.id],
  ]);
  expect(bulksLeft.map((b: { id: string }) => b.id).sort()).toEqual([newBulk.id, runningBulk.id].sort());
  // Every run written meanwhile answered and kept its records.
  expect(answers.every((status) => status === 200)).toBe(true);
  expect(await count(`SELECT count(*) AS n FROM executions WHERE organization_id = $1 AND workflow_name <> 'seeded'`, [team.organizationId])).toBe(
    answers.length,
  );

  // Bounded: a run stops after maxBatches and says more is due; the next beat goes on.
  await seed(free, 'free-more-', 250, 9);
  const bounded: PruneExecutionsResult = await h.services.temporal.client.workflow.execute(PRUNE_EXECUTIONS_WORKFLOW, {
    taskQueue: h.services.config.temporal.taskQueue,
    workflowId: `prune-test-bounded-${Date.now()}`,
    args: [{ batchSize: 100, maxBatches: 2 }],
  });
  expect(bounded).toEqual({ deleted: 200, batches: 2, more: true });
  expect(await executionsLike(free, 'free-more-')).toBe(50);
});

test('the retention schedule exists with the configured interval after a worker starts, and follows a changed setting', async () => {
  const client = h.services.temporal.client;
  const taskQueue = `${h.services.config.temporal.taskQueue}-retention`;
  await ensureRetentionSchedule(client, taskQueue, { intervalMinutes: 60, batchSize: 1_000 });
  const handle = client.schedule.getHandle(retentionScheduleId(taskQueue));
  try {
    const first = await handle.describe();
    expect(first.spec.intervals?.[0]?.every).toBe(60 * 60_000);
    expect(first.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: PRUNE_EXECUTIONS_WORKFLOW,
      taskQueue,
      args: [{ batchSize: 1_000, maxBatches: 100 }],
    });
    expect(first.policies.overlap).toBe('SKIP');
    await ensureRetentionSchedule(client, taskQueue, { intervalMinutes: 15, batchSize: 500 });
    const changed = await handle.describe();
    expect(changed.spec.intervals?.[0]?.every).toBe(15 * 60_000);
    expect(changed.action).toMatchObject({ args: [{ batchSize: 500, maxBatches: 100 }] });
  } finally {
    await handle.delete();
  }
});
