import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';

/**
 * POST /dashboards/data-sources/infer-fields: the fields a new source over a
 * table would have, read from its records before any source exists (the
 * console's "New data source" form), for the organization's own tables and
 * tables shared with it, and nothing of anyone else's.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

const INFER = '/dashboards/data-sources/infer-fields';
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const ORDERS = {
  'order:1': { placedAt: '2026-03-10T03:30:00Z', day: '2026-03-10', amount: 10, qty: '2', region: 'EU', 'first name': 'Ada', count: 1 },
  'order:2': { placedAt: '2026-03-11T12:00:00Z', day: '2026-03-11', amount: 25.5, qty: null, region: 'US', note: 7 },
  'order:3': { placedAt: '2026-03-12T08:00:00Z', day: '2026-03-12', amount: 7, qty: '1', region: 'EU', note: 'late' },
};

test('infers types, labels and measures from the records of an own table, skips names that cannot be fields, and saves nothing', async () => {
  const org = await createTestOrg(h.services);
  const table = uniqueName('orders');
  await seedRecords(h.app, org, table, ORDERS);

  const res = await owner(org).post(INFER).send({ dataStoreTableName: table });
  expectStatus(res, 201);
  expect(res.body).toEqual({
    fields: {
      placedAt: { type: 'date', label: 'Placed at' },
      day: { type: 'date', label: 'Day' },
      amount: { type: 'number', label: 'Amount', measure: true },
      qty: { type: 'number', label: 'Qty', measure: true },
      region: { type: 'string', label: 'Region' },
      note: { type: 'string', label: 'Note' },
    },
    skippedFields: expect.arrayContaining(['first name', 'count']),
    sampledRecords: 3,
  });
  expect(res.body.skippedFields).toHaveLength(2);
  // Nothing saved: the organization has its built-in run sources only.
  expect((await owner(org).get('/dashboards/data-sources')).body.filter((s: { builtIn: boolean }) => !s.builtIn)).toEqual([]);

  // What it answers is a schema the create route takes once a time dimension is chosen.
  const fields = { ...res.body.fields, placedAt: { ...res.body.fields.placedAt, timeDimension: true } };
  expectStatus(
    await owner(org)
      .post('/dashboards/data-sources')
      .send({ name: 'Orders', dataStoreTableName: table, recordSchema: { name: 'Orders', fields } }),
    201,
  );
});

test('an unknown table, or another organization’s, is 400 unknown_table at its field; a viewer may not infer', async () => {
  const [org, other] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
  const theirs = uniqueName('orders');
  await seedRecords(h.app, other, theirs, ORDERS);

  for (const name of [uniqueName('missing'), theirs]) {
    const res = await owner(org).post(INFER).send({ dataStoreTableName: name });
    expectError(res, 400, 'unknown_table');
    expect(res.body.error.details).toEqual([{ path: 'dataStoreTableName', message: 'no such table' }]);
    expect(JSON.stringify(res.body)).not.toContain('amount');
  }
  expectError(await owner(org).post(INFER).send({}), 400);
  expectError(await as(h.app, org.tokens.viewer).post(INFER).send({ dataStoreTableName: theirs }), 403);
});

test('a table shared with the organization is inferred through its share, by alias, until the share is revoked', async () => {
  const [from, to] = await Promise.all([createTestOrg(h.services, 'business'), createTestOrg(h.services)]);
  const table = uniqueName('sales');
  await seedRecords(h.app, from, table, ORDERS);
  const alias = uniqueName('their_sales');
  const shared = await owner(from).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId, alias });
  expectStatus(shared, 201);

  const res = await owner(to).post(INFER).send({ dataStoreTableName: alias, sharedFromOrganizationId: from.organizationId });
  expectStatus(res, 201);
  expect(Object.keys(res.body.fields).sort()).toEqual(['amount', 'day', 'note', 'placedAt', 'qty', 'region']);
  // Without the owner named, the alias is no table of the recipient's own.
  expectError(await owner(to).post(INFER).send({ dataStoreTableName: alias }), 400, 'unknown_table');

  expectStatus(await owner(from).delete(`/dashboards/shares/${shared.body.id}`), 200);
  expectError(await owner(to).post(INFER).send({ dataStoreTableName: alias, sharedFromOrganizationId: from.organizationId }), 400, 'share_inactive');
});

test('reads records cut down to what inference needs: long texts and objects are strings, and the answer stays small', async () => {
  const org = await createTestOrg(h.services);
  const table = uniqueName('wide');
  const wide: Record<string, unknown> = { amount: 3, essay: `${'9'.repeat(150)}`, nested: { at: '2026-03-10' }, list: [1, 2] };
  for (let i = 0; i < 80; i++) wide[`bad name ${i}`] = i;
  await seedRecords(h.app, org, table, { k1: wide });

  const res = await owner(org).post(INFER).send({ dataStoreTableName: table });
  expectStatus(res, 201);
  expect(res.body.fields).toMatchObject({
    amount: { type: 'number' },
    // 150 digits would read as a number; a text that long is kept as text, and is never sent to the process whole.
    essay: { type: 'string' },
    nested: { type: 'string' },
    list: { type: 'string' },
  });
  expect(res.body.skippedFields).toHaveLength(50);

  const long = uniqueName('long');
  await seedRecords(h.app, org, long, { k1: { amount: 1, [`x${'y'.repeat(300)}`]: 1 } });
  const named = await owner(org).post(INFER).send({ dataStoreTableName: long });
  expect(named.body.skippedFields).toEqual([`x${'y'.repeat(99)}…`]);
});
