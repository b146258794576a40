import { as, type Harness, startHarness } from './harness';
import { workflowApi } from './workflow-api';
import { createTestOrg, waitFor } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.startWorker();
});
afterAll(() => h.close());

test('a record a workflow step writes is in the analytics answer once the 1 s cache expires (polled up to 3 s)', async () => {
  const org = await createTestOrg(h.services);
  const owner = () => as(h.app, org.ownerToken);
  const a = workflowApi(h.app, org);
  expect((await owner().post('/data-stores/tables').send({ tableName: 'signups' })).status).toBe(201);
  const source = await owner()
    .post('/dashboards/data-sources')
    .send({
      name: 'Signups',
      dataStoreTableName: 'signups',
      recordSchema: {
        name: 'signups',
        fields: {
          plan: { type: 'string', label: 'Plan' },
          seats: { type: 'number', label: 'Seats', measure: true },
          at: { type: 'date', label: 'At', timeDimension: true },
        },
      },
    });
  expect(source.status).toBe(201);
  const rel: string = source.body.servingRelation;
  const query = async () =>
    (
      await owner()
        .post('/dashboards/analytics/query')
        .send({ query: { measures: [`${rel}.count`, `${rel}.seats`], dimensions: [`${rel}.plan`] } })
    ).body.data;
  expect(await query()).toEqual([]);

  const { id } = await a.createWorkflow([
    {
      stepId: 'save',
      stepType: 'data-store.set',
      input: {
        tableName: 'signups',
        key: '{{ initial.email }}',
        value: { plan: '{{ initial.plan }}', seats: '{{ initial.seats }}', at: '2026-11-01T00:00:00Z' },
      },
    },
  ]);
  const run = await a.runAndWait(id, { email: 'ada@example.test', plan: 'team', seats: 5 });
  expect(run.status).toBe('completed');
  // Polled: Cube caches a result at most 1 s; the deadline adds what the queries take on a loaded 2-core machine.
  await waitFor(async () => (await query()).length > 0, { timeoutMs: 3000, what: "the step's record in the answer" });
  expect(await query()).toEqual([{ [`${rel}.plan`]: 'team', [`${rel}.count`]: '1', [`${rel}.seats`]: '5' }]);
});
