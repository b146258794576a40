import { createDataStoreActivities } from '../activities/data-stores';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, eventually, seedRecords, type TestOrg, uniqueName } from './factories';
import { SALES_FIELDS } from './dashboard-fixtures';

/**
 * Shares of data store tables (interface.md 4.6, 5.5, 2.8) across real
 * organizations: who may share, the lifecycle on both sides, read-only
 * enforced on every write path, and revocation failing every read at once.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-11T12:00:00Z', amount: 20, region: 'US' },
};

/** An owner on a sharing plan with a table of sales, and a recipient. */
async function pair(): Promise<{ from: TestOrg; to: TestOrg; table: string }> {
  const [from, to] = await Promise.all([createTestOrg(h.services, 'business'), createTestOrg(h.services)]);
  const table = uniqueName('sales');
  await seedRecords(h.app, from, table, SALES);
  return { from, to, table };
}

async function share(from: TestOrg, body: Json): Promise<Json> {
  const res = await owner(from).post('/dashboards/shares').send(body);
  expectStatus(res, 201);
  return res.body;
}

async function sharedSource(to: TestOrg, from: TestOrg, tableName: string): Promise<Json> {
  const res = await owner(to)
    .post('/dashboards/data-sources')
    .send({
      name: uniqueName('Shared'),
      dataStoreTableName: tableName,
      sharedFromOrganizationId: from.organizationId,
      recordSchema: { name: 'Sales', fields: SALES_FIELDS },
    });
  expectStatus(res, 201);
  return res.body;
}

const totalQuery = (ds: string) => ({ query: { measures: [`${ds}.count`, `${ds}.amount`], dimensions: [], timeDimensions: [], filters: [] } });

describe('creating a share', () => {
  it('shares by id or by suid, read-only, with the table name as the default alias', async () => {
    const { from, to, table } = await pair();
    const byId = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    expect(byId).toEqual(
      expect.objectContaining({
        organizationId: from.organizationId,
        ownerOrganizationId: from.organizationId,
        tableName: table,
        sharedToOrganizationId: to.organizationId,
        alias: table,
        readOnly: true,
      }),
    );
    const other = await createTestOrg(h.services);
    const bySuid = await share(from, { tableName: table, sharedToOrganizationSuid: other.organizationSuid, alias: 'their_sales' });
    expect(bySuid).toEqual(expect.objectContaining({ sharedToOrganizationId: other.organizationId, alias: 'their_sales' }));
  });

  it('answers a distinct 400 for each share problem', async () => {
    const { from, to, table } = await pair();
    const post = (body: Json) => owner(from).post('/dashboards/shares').send(body);
    expectError(await post({ tableName: table }), 400, 'recipient_required');
    expectError(await post({ tableName: table, sharedToOrganizationId: '00000000-0000-4000-8000-000000000000' }), 400, 'unknown_recipient');
    expectError(await post({ tableName: table, sharedToOrganizationSuid: 'no-such-org' }), 400, 'unknown_recipient');
    expectError(
      await post({ tableName: table, sharedToOrganizationId: to.organizationId, sharedToOrganizationSuid: from.organizationSuid }),
      400,
      'unknown_recipient',
    );
    expectError(await post({ tableName: table, sharedToOrganizationId: from.organizationId }), 400, 'own_organization');
    expectError(await post({ tableName: 'no_such_table', sharedToOrganizationId: to.organizationId }), 400, 'unknown_table');
    await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    expectError(await post({ tableName: table, sharedToOrganizationId: to.organizationId, alias: 'again' }), 400, 'already_shared');
  });

  it("answers the same whatever the recipient's names: a share probe reveals none of them", async () => {
    const { from, to, table } = await pair();
    const second = uniqueName('more');
    const third = uniqueName('third');
    await seedRecords(h.app, from, second, { a: { at: '2026-01-01', amount: 1 } });
    await seedRecords(h.app, from, third, { a: { at: '2026-01-02', amount: 2 } });
    await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'received_before' });
    await seedRecords(h.app, to, 'local_table', { a: { x: 1 } });
    // An alias the recipient already receives, one it uses for a table of its own, and one it has never heard of.
    const answers = await Promise.all(
      [
        { tableName: second, alias: 'received_before' },
        { tableName: third, alias: 'local_table' },
      ].map((body) =>
        owner(from)
          .post('/dashboards/shares')
          .send({ ...body, sharedToOrganizationId: to.organizationId }),
      ),
    );
    const never = await owner(from)
      .post('/dashboards/shares')
      .send({ tableName: second, sharedToOrganizationId: (await createTestOrg(h.services)).organizationId, alias: 'unheard_of' });
    const shape = (res: { status: number; body: Json }) => [res.status, Object.keys(res.body).sort()];
    for (const res of [...answers, never]) expect(shape(res)).toEqual(shape(never));
    expect(never.status).toBe(201);
  });

  it('refuses organizations whose plan lacks sharing, and operators can change the plan', async () => {
    const [free, to] = await Promise.all([createTestOrg(h.services, 'free'), createTestOrg(h.services)]);
    const table = uniqueName('t');
    await seedRecords(h.app, free, table, SALES);
    const body = { tableName: table, sharedToOrganizationId: to.organizationId };
    const refused = await owner(free).post('/dashboards/shares').send(body);
    expectError(refused, 400, 'plan_lacks_sharing');
    expect(refused.body.error.message).toMatch(/business/);
    await h.services.organizations.setPlan(free.organizationSuid, 'enterprise');
    expectStatus(await owner(free).post('/dashboards/shares').send(body), 201);
  });

  it('lets one of two concurrent shares of the same table to the same organization win', async () => {
    const { from, to, table } = await pair();
    const body = { tableName: table, sharedToOrganizationId: to.organizationId };
    const answers = await Promise.all([1, 2, 3].map(() => owner(from).post('/dashboards/shares').send(body)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of answers.filter((a) => a.status === 400)) expectError(r, 400, 'already_shared');
  });
});

describe('listing and revoking', () => {
  it('lists active shares on both sides with the analytics tag, and a revoked share on neither', async () => {
    const { from, to, table } = await pair();
    const custom = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    const feedTable = uniqueName('calls');
    await h.services.dataStores.createTable(from.organizationId, feedTable);
    await h.services.feedSources.createFeedSource(from.organizationId, from.ownerId, {
      name: 'Calls',
      type: 'twilio:calls',
      connectionId: '00000000-0000-4000-8000-000000000001',
      connectionName: 'twilio_main',
      dataStoreTableName: feedTable,
      recordSchema: { name: 'Calls', fields: { startTime: { type: 'date', label: 'Start', timeDimension: true } } },
      syncIntervalMinutes: 60,
    });
    const calls = await share(from, { tableName: feedTable, sharedToOrganizationId: to.organizationId });

    const granted = await owner(from).get('/dashboards/shares/granted');
    expectStatus(granted, 200);
    expect(granted.body.map((s: Json) => s.id)).toEqual([calls.id, custom.id]);
    const received = await owner(to).get('/dashboards/shares/received');
    expect(received.body.map((s: Json) => [s.id, s.analyticsTag])).toEqual([
      [calls.id, 'twilio:calls'],
      [custom.id, 'custom'],
    ]);
    // Neither side sees the other's list as its own.
    expect((await owner(to).get('/dashboards/shares/granted')).body).toEqual([]);
    expect((await owner(from).get('/dashboards/shares/received')).body).toEqual([]);

    // The granting organization revokes; to a third organization the share does not exist.
    expectError(await owner(await createTestOrg(h.services)).delete(`/dashboards/shares/${custom.id}`), 404);
    const revoked = await owner(from).delete(`/dashboards/shares/${custom.id}`);
    expectStatus(revoked, 200);
    expect(revoked.body).toEqual({ revoked: true });
    expect((await owner(from).get('/dashboards/shares/granted')).body.map((s: Json) => s.id)).toEqual([calls.id]);
    expect((await owner(to).get('/dashboards/shares/received')).body.map((s: Json) => s.id)).toEqual([calls.id]);
    expectError(await owner(from).delete(`/dashboards/shares/${custom.id}`), 404);

    // The recipient may remove a share it received (it never asked for it).
    expectStatus(await owner(to).delete(`/dashboards/shares/${calls.id}`), 200);
    expect((await owner(to).get('/dashboards/shares/received')).body).toEqual([]);
    expect((await owner(from).get('/dashboards/shares/granted')).body).toEqual([]);
  });

  it('answers 403 when the caller has no access to the active organization', async () => {
    const { to } = await pair();
    const res = await owner(to)
      .get('/dashboards/shares/received')
      .set('X-Organization-Id', (await createTestOrg(h.services)).organizationId);
    expectError(res, 403, 'no_organization_access');
  });
});

describe('read-only', () => {
  it('lets the recipient read the shared table under its alias, and refuses every write path', async () => {
    const { from, to, table } = await pair();
    await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'partner_sales' });
    const read = await owner(to).get('/data-stores/tables/partner_sales');
    expectStatus(read, 200);
    expect(read.body.data.map((r: Json) => r.key)).toEqual(['k1', 'k2']);
    expect((await owner(to).get('/data-stores/tables/partner_sales/records/k1')).body.value).toEqual(SALES.k1);

    const refused = [
      await owner(to)
        .post('/data-stores')
        .send({ tableName: 'partner_sales', key: 'new', value: { amount: 1 } }),
      await owner(to).post('/data-stores/tables').send({ tableName: 'partner_sales' }),
      await owner(to)
        .post('/data-stores/tables/partner_sales')
        .send({ records: [{ key: 'k1', value: { amount: 999 } }] }),
      await owner(to)
        .put('/data-stores/tables/partner_sales/records/k1')
        .send({ value: { amount: 999 } }),
      await owner(to)
        .patch('/data-stores/tables/partner_sales/records/k1')
        .send({ value: { amount: 999 } }),
      await owner(to).delete('/data-stores/tables/partner_sales/records/k1'),
      await owner(to).delete('/data-stores/tables/partner_sales'),
      await owner(to).post('/data-stores/tables/partner_sales/import').set('Content-Type', 'application/json').send('[{"key":"k1","value":{"amount":999}}]'),
    ];
    for (const res of refused) expectError(res, 400, 'shared_table_read_only');

    // The workflow engine's data store steps go through the same service.
    const steps = createDataStoreActivities({ dataStores: h.services.dataStores });
    await expect(
      steps.writeDataStoreRecords({ organizationId: to.organizationId, tableName: 'partner_sales', records: [{ key: 'k1', value: { amount: 999 } }] }),
    ).rejects.toMatchObject({ type: 'shared_table_read_only', nonRetryable: true });
    expect(await steps.readDataStoreRecord({ organizationId: to.organizationId, tableName: 'partner_sales', key: 'k2' })).toMatchObject({ value: SALES.k2 });

    // Nothing of the owner's changed.
    const ownerView = await owner(from).get(`/data-stores/tables/${table}`);
    expect(ownerView.body.data.map((r: Json) => [r.key, r.value])).toEqual([
      ['k1', SALES.k1],
      ['k2', SALES.k2],
    ]);
  });

  it("never hides the recipient's own tables: its own table wins, and removing a received share frees the name", async () => {
    const { from, to, table } = await pair();
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'orders' });
    // While the share stands, the name reads the owner's table and cannot be taken by a write.
    expectError(
      await owner(to)
        .post('/data-stores/tables/orders')
        .send({ key: 'mine', value: { n: 1 } }),
      400,
      'shared_table_read_only',
    );
    // The recipient did not ask for the share; removing it gives the name back.
    expectStatus(await owner(to).delete(`/dashboards/shares/${s.id}`), 200);
    expectStatus(
      await owner(to)
        .post('/data-stores/tables/orders')
        .send({ key: 'mine', value: { n: 1 } }),
      201,
    );

    // A share under a name the recipient uses is made as any other (the owner learns nothing), and the recipient's table wins.
    const other = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'partner_orders' });
    const second = uniqueName('second');
    await seedRecords(h.app, from, second, { a: { at: '2026-01-01', amount: 1 } });
    const onOwn = await share(from, { tableName: second, sharedToOrganizationId: to.organizationId, alias: 'orders' });
    const mine = await owner(to).get('/data-stores/tables/orders');
    expect(mine.body.data.map((r: Json) => [r.key, r.value])).toEqual([['mine', { n: 1 }]]);
    expectStatus(
      await owner(to)
        .post('/data-stores/tables/orders')
        .send({ key: 'mine2', value: { n: 3 } }),
      201,
    );
    const received = (await owner(to).get('/dashboards/shares/received')).body as Json[];
    expect(received.find((r) => r.id === onOwn.id)?.shadowedBy).toBe('own_table');
    expect(received.find((r) => r.id === other.id)?.shadowedBy).toBeNull();
    // Even a table the recipient creates under an alias it receives (a race with the share) stays its own once it exists.
    await h.services.dataStores.createTable(to.organizationId, 'raced');
    await h.services.db.query(`UPDATE data_store_shares SET alias = 'raced' WHERE id = $1`, [other.id]);
    const own = await owner(to).get('/data-stores/tables/raced');
    expectStatus(own, 200);
    expect(own.body.data).toEqual([]);
    expectStatus(
      await owner(to)
        .post('/data-stores/tables/raced')
        .send({ key: 'mine', value: { n: 2 } }),
      201,
    );
    expect((await owner(from).get(`/data-stores/tables/${table}`)).body.data.map((r: Json) => r.key)).toEqual(['k1', 'k2']);
  });

  it('two owners choosing one alias: the earliest active share holds it, the later one says so, and revoking the first hands the name on', async () => {
    const { from, to, table } = await pair();
    const { from: second, table: secondTable } = await pair();
    const first = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'partner' });
    const later = await share(second, { tableName: secondTable, sharedToOrganizationId: to.organizationId, alias: 'partner' });
    const read = async () => (await owner(to).get('/data-stores/tables/partner')).body.data.map((r: Json) => r.organizationId);
    expect(new Set(await read())).toEqual(new Set([from.organizationId]));
    const received = (await owner(to).get('/dashboards/shares/received')).body as Json[];
    expect(received.map((r) => [r.id, r.shadowedBy])).toEqual([
      [later.id, 'earlier_share'],
      [first.id, null],
    ]);
    const write = await owner(to)
      .post('/data-stores/tables/partner')
      .send({ key: 'x', value: { n: 1 } });
    expectError(write, 400, 'shared_table_read_only');
    expect(write.body.error.message).toContain(first.id);
    expectStatus(await owner(from).delete(`/dashboards/shares/${first.id}`), 200);
    expect(new Set(await read())).toEqual(new Set([second.organizationId]));
  });

  it('stops answering reads through the alias once the share is revoked', async () => {
    const { from, to, table } = await pair();
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    expectStatus(await owner(to).get(`/data-stores/tables/${table}`), 200);
    await owner(from).delete(`/dashboards/shares/${s.id}`);
    expectError(await owner(to).get(`/data-stores/tables/${table}`), 404);
    expectError(await owner(to).get(`/data-stores/tables/${table}/records/k1`), 404);
  });
});

describe('data sources over a shared table', () => {
  it("reads the owner's records live, and 400 without an active share", async () => {
    const { from, to, table } = await pair();
    const refused = await owner(to)
      .post('/dashboards/data-sources')
      .send({ name: 'X', dataStoreTableName: table, sharedFromOrganizationId: from.organizationId, recordSchema: { name: 'Sales', fields: SALES_FIELDS } });
    expectError(refused, 400, 'share_inactive');

    await share(from, { tableName: table, sharedToOrganizationId: to.organizationId, alias: 'theirs' });
    const source = await sharedSource(to, from, 'theirs');
    expect(source).toEqual(
      expect.objectContaining({ sharedFromOrganizationId: from.organizationId, dataStoreTableName: table, organizationId: to.organizationId }),
    );
    const first = await owner(to).post('/dashboards/analytics/query').send(totalQuery(source.servingRelation));
    expectStatus(first, 201);
    expect(Number(first.body.data[0][`${source.servingRelation}.count`])).toBe(2);

    // The owner's new record shows up in the recipient's answers without any action of theirs.
    await seedRecords(h.app, from, table, { k3: { at: '2026-03-12T00:00:00Z', amount: 5, region: 'EU' } });
    await eventually(
      () => owner(to).post('/dashboards/analytics/query').send(totalQuery(source.servingRelation)),
      (res) => Number(res.body.data?.[0]?.[`${source.servingRelation}.count`]) === 3,
      5_000,
    );
    // At most five sources per share: each is a copy the owner's every write updates.
    for (let i = 1; i < 5; i++) await sharedSource(to, from, 'theirs');
    const sixth = await owner(to)
      .post('/dashboards/data-sources')
      .send({
        name: 'Sixth',
        dataStoreTableName: 'theirs',
        sharedFromOrganizationId: from.organizationId,
        recordSchema: { name: 'Sales', fields: SALES_FIELDS },
      });
    expectError(sixth, 400, 'share_source_limit');
    // Naming the alias without sharedFromOrganizationId says how to read it.
    const unshared = await owner(to)
      .post('/dashboards/data-sources')
      .send({ name: 'Plain', dataStoreTableName: 'theirs', recordSchema: { name: 'Sales', fields: SALES_FIELDS } });
    expectError(unshared, 400, 'unknown_table');
    expect(unshared.body.error.message).toContain(`sharedFromOrganizationId: "${from.organizationId}"`);
    // The owner's own sources stay the owner's.
    const ownSource = await owner(from)
      .post('/dashboards/data-sources')
      .send({ name: 'Mine', dataStoreTableName: table, recordSchema: { name: 'Sales', fields: SALES_FIELDS } });
    expectError(await owner(to).get(`/dashboards/data-sources/${ownSource.body.id}`), 404);
  });

  it('refuses an answer Cube was computing when the share was revoked', async () => {
    const { from, to, table } = await pair();
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    const source = await sharedSource(to, from, table);
    const ds = source.servingRelation;
    // A revocation landing while Cube works on a query: the answer is refused, not served.
    const cube = h.services.cube;
    const load = cube.load.bind(cube);
    cube.load = async (...args) => {
      await owner(from).delete(`/dashboards/shares/${s.id}`);
      return load(...args);
    };
    try {
      expectError(
        await owner(to)
          .post('/dashboards/analytics/query')
          .send({ query: { ...totalQuery(ds).query, limit: 7 } }),
        400,
        'share_inactive',
      );
    } finally {
      cube.load = load;
    }
    expect((await owner(from).get('/dashboards/shares/granted')).body).toEqual([]);
    expect((await owner(to).get(`/dashboards/data-sources/${source.id}`)).body.enabled).toBe(false);
  });

  it('fails every read of the source at once after revocation, even one Cube has cached', async () => {
    const { from, to, table } = await pair();
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    const source = await sharedSource(to, from, table);
    const ds = source.servingRelation;
    const dashboard = (
      await owner(to)
        .post('/dashboards')
        .send({ name: uniqueName('D') })
    ).body;
    const widget = (
      await owner(to)
        .post(`/dashboards/${dashboard.id}/widgets`)
        .send({ title: 'Total', chartType: 'stat-card', dataSourceId: source.id, queryConfig: { measures: [`${ds}.amount`] } })
    ).body;
    // Warm Cube's cache with the exact queries asked again below.
    expectStatus(await owner(to).post('/dashboards/analytics/query').send(totalQuery(ds)), 201);
    expectStatus(await owner(to).post(`/dashboards/widgets/${widget.id}/data`).send({}), 201);
    const distinct = { dataSourceId: source.id, dimension: 'region' };
    expect((await owner(to).post('/dashboards/analytics/distinct-values').send(distinct)).body.values).toEqual(['EU', 'US']);

    expectStatus(await owner(from).delete(`/dashboards/shares/${s.id}`), 200);

    expectError(await owner(to).post('/dashboards/analytics/query').send(totalQuery(ds)), 400, 'share_inactive');
    expectError(await owner(to).post('/dashboards/analytics/distinct-values').send(distinct), 400, 'share_inactive');
    expectError(
      await owner(to)
        .post('/dashboards/analytics/export-csv')
        .send({ ...totalQuery(ds), title: 'x' }),
      400,
      'share_inactive',
    );
    const widgetData = await owner(to).post(`/dashboards/widgets/${widget.id}/data`).send({});
    expectError(widgetData, 400, 'widget_source_unavailable');
    expect(widgetData.body.error.message).toMatch(/revoked/);
    expectError(await owner(to).post(`/dashboards/data-sources/${source.id}/refresh-schema`), 400, 'share_inactive');
    expectError(await owner(to).patch(`/dashboards/data-sources/${source.id}`).send({ enabled: true }), 400, 'share_inactive');

    // No copy of the owner's rows stays in the recipient's serving relation.
    const [{ n }] = await h.services.db.query(`SELECT count(*)::int AS n FROM analytics.${ds}`);
    expect(n).toBe(0);
    expect((await owner(to).get(`/dashboards/data-sources/${source.id}`)).body.enabled).toBe(false);
    // Owner writes after the revocation are not copied to the recipient either.
    await seedRecords(h.app, from, table, { k9: { at: '2026-03-12T00:00:00Z', amount: 1, region: 'EU' } });
    const [{ m }] = await h.services.db.query(`SELECT count(*)::int AS m FROM analytics.${ds}`);
    expect(m).toBe(0);
    // The recipient may still delete its dead source.
    expectStatus(await owner(to).delete(`/dashboards/data-sources/${source.id}`), 200);
  });
});

describe('revocation racing the recipient', () => {
  it('never leaves a readable or filled source, whichever of create and revoke wins', async () => {
    const { from, to, table } = await pair();
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`r${i}`, { at: '2026-03-10T00:00:00Z', amount: i, region: 'EU' }]));
    await seedRecords(h.app, from, table, many);
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    const creating = owner(to)
      .post('/dashboards/data-sources')
      .send({
        name: 'Racing',
        dataStoreTableName: table,
        sharedFromOrganizationId: from.organizationId,
        recordSchema: { name: 'Sales', fields: SALES_FIELDS },
      });
    const [created, revoked] = await Promise.all([creating.then((r) => r), owner(from).delete(`/dashboards/shares/${s.id}`)]);
    expectStatus(revoked, 200);
    if (created.status === 400) {
      expectError(created, 400, 'share_inactive');
      return;
    }
    expectStatus(created, 201);
    const after = (await owner(to).get(`/dashboards/data-sources/${created.body.id}`)).body;
    expect(after.enabled).toBe(false);
    const [{ n }] = await h.services.db.query(`SELECT count(*)::int AS n FROM analytics.${created.body.servingRelation}`);
    expect(n).toBe(0);
    expectError(await owner(to).post('/dashboards/analytics/query').send(totalQuery(created.body.servingRelation)), 400, 'share_inactive');
  });
});

describe("the owner's side", () => {
  it('refuses edits that re-key or destroy shared data, and deleting what a share depends on', async () => {
    const { from, to, table } = await pair();
    const mine = (
      await owner(from)
        .post('/dashboards/data-sources')
        .send({ name: 'Mine', dataStoreTableName: table, recordSchema: { name: 'Sales', fields: SALES_FIELDS } })
    ).body;
    const s = await share(from, { tableName: table, sharedToOrganizationId: to.organizationId });
    const patch = (fields: Json, extra: Json = {}) =>
      owner(from)
        .patch(`/dashboards/data-sources/${mine.id}`)
        .send({ recordSchema: { name: 'Sales', fields }, ...extra });

    const rekey = await patch(
      { ...SALES_FIELDS, at: { type: 'date', label: 'At' }, closed: { type: 'date', label: 'Closed', timeDimension: true } },
      { confirmTimeFieldRekey: true },
    );
    expectError(rekey, 400, 'share_dependency');
    expect(rekey.body.error.message).toContain(s.id);
    const { region: _dropped, ...withoutRegion } = SALES_FIELDS;
    expectError(await patch(withoutRegion), 400, 'share_dependency');
    // Adding a field takes nothing away.
    expectStatus(await patch({ ...SALES_FIELDS, channel: { type: 'string', label: 'Channel' } }), 200);

    expectError(await owner(from).delete(`/dashboards/data-sources/${mine.id}`), 400, 'share_dependency');
    expectError(await owner(from).delete(`/data-stores/tables/${table}`), 400, 'share_dependency');

    await owner(from).delete(`/dashboards/shares/${s.id}`);
    expectStatus(await owner(from).delete(`/dashboards/data-sources/${mine.id}`), 200);
    expectStatus(await owner(from).delete(`/data-stores/tables/${table}`), 200);
  });
});
