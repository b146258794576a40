import { ApplicationFailure } from '@temporalio/common';
import { createDataStoreActivities } from '../activities/data-stores';
import { as, type Harness, startHarness } from './harness';
import { createTestOrg } from './factories';

let h: Harness;
let activities: ReturnType<typeof createDataStoreActivities>;
beforeAll(async () => {
  h = await startHarness();
  activities = createDataStoreActivities({ dataStores: h.services.dataStores });
});
afterAll(() => h.close());

describe('data store step activities', () => {
  test('a step write is an API write: same records, readable through the API, the table created by "workflow"', async () => {
    const org = await createTestOrg(h.services);
    const written = await activities.writeDataStoreRecords({
      organizationId: org.organizationId,
      tableName: 'leads',
      records: [
        { key: 'l1', value: { score: 3 } },
        { key: 'l2', value: { score: 9 }, ttlSeconds: 60 },
      ],
    });
    expect(written).toEqual({ created: 2, updated: 0, keys: ['l1', 'l2'] });

    const viaApi = await as(h.app, org.tokens.viewer).get('/data-stores/tables/leads');
    expect(viaApi.body.data.map((r: { key: string; value: unknown }) => [r.key, r.value])).toEqual([
      ['l1', { score: 3 }],
      ['l2', { score: 9 }],
    ]);
    const tables = await as(h.app, org.tokens.viewer).get('/data-stores/tables');
    expect(tables.body.data).toEqual([expect.objectContaining({ tableName: 'leads', createdVia: 'workflow', recordCount: 2 })]);

    const again = await activities.writeDataStoreRecords({
      organizationId: org.organizationId,
      tableName: 'leads',
      records: [{ key: 'l1', value: { score: 4 } }],
    });
    expect(again).toMatchObject({ created: 0, updated: 1 });
    expect(await activities.readDataStoreRecord({ organizationId: org.organizationId, tableName: 'leads', key: 'l1' })).toMatchObject({ value: { score: 4 } });
    expect(await activities.readDataStoreRecord({ organizationId: org.organizationId, tableName: 'leads', key: 'nope' })).toBeNull();
  });

  test('bad input fails the step without retries, naming the field; nothing is written', async () => {
    const org = await createTestOrg(h.services);
    const failure = await activities
      .writeDataStoreRecords({ organizationId: org.organizationId, tableName: 'leads', records: [{ key: '__meta__', value: { a: 1 } }] })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true, type: 'validation_failed' });
    expect((failure as ApplicationFailure).details?.[0]).toEqual([expect.objectContaining({ path: 'records.0.key' })]);

    const oversize = await activities
      .writeDataStoreRecords({ organizationId: org.organizationId, tableName: 'leads', records: [{ key: 'k', value: { big: 'x'.repeat(300_000) } }] })
      .catch((err: unknown) => err);
    expect(oversize).toMatchObject({ nonRetryable: true, type: 'validation_failed' });
    expect((await as(h.app, org.ownerToken).get('/data-stores/tables')).body.total).toBe(0);
  });

  test("a step only reaches its own organization's tables", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await activities.writeDataStoreRecords({ organizationId: a.organizationId, tableName: 'shared_name', records: [{ key: 'k', value: { owner: 'a' } }] });
    expect(await activities.readDataStoreRecord({ organizationId: b.organizationId, tableName: 'shared_name', key: 'k' })).toBeNull();
  });
});
