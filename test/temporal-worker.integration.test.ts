import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../src/app/activity-deps';
import { createWorker } from '../src/temporal/worker';
import { diagnosticsWorkflow } from '../workflows';
import { type Harness, startHarness } from './harness';
import { createTestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  h = await startHarness();
});
afterAll(() => h.close());

test('a workflow from workflows/ runs its activity from activities/ end to end on the dev server', async () => {
  const org = await createTestOrg(h.services);
  const taskQueue = `test-${randomUUID()}`;
  const deps = createActivityDeps(h.services);
  const { worker, connection } = await createWorker({
    address: h.services.config.temporal.address!,
    namespace: h.services.config.temporal.namespace,
    taskQueue,
    deps,
  });
  try {
    const result = await worker.runUntil(
      h.services.temporal.client.workflow.execute(diagnosticsWorkflow, {
        taskQueue,
        workflowId: `diagnostics-${randomUUID()}`,
        args: [org.organizationId],
      }),
    );
    const [{ name }] = await h.services.db.query('SELECT name FROM organizations WHERE id = $1', [org.organizationId]);
    expect(result.organizationName).toBe(name);
    // The activity read the database's clock: no later than the database's own now, asked after the run.
    const [{ now }] = await h.services.db.query('SELECT now() AS now');
    expect(Date.parse(result.databaseTime)).toBeLessThanOrEqual((now as Date).getTime());
  } finally {
    await connection.close();
    await deps.close();
  }
});
