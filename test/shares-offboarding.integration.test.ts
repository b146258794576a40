import type request from 'supertest';
import { Client } from 'pg';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { createDataStoreActivities } from '../activities/data-stores';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, eventually, seedRecords, type TestOrg, uniqueName } from './factories';
import { SALES_FIELDS } from './dashboard-fixtures';

/**
 * Sharing is the organization's decision (shares:admin, owners and admins),
 * and a share ends with the standing of the member who granted it: removing
 * or demoting them revokes it, unless an owner keeps it. After that, the
 * recipient reads nothing through any path. A closed source takes none of the
 * owner's locks.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-11T12:00:00Z', amount: 20, region: 'US' },
};

/** An enterprise organization with a table of sales, its members' user ids by role. */
async function enterprise(): Promise<{ org: TestOrg; table: string; userIds: Record<string, string> }> {
  const org = await createTestOrg(h.services, 'enterprise');
  const table = uniqueName('sales');
  await seedRecords(h.app, org, table, SALES);
  const members = (await as(h.app, org.ownerToken).get('/organization/members')).body.data as Json[];
  const userIds = Object.fromEntries(members.map((m) => [m.email.split('-')[0], m.userId]));
  return { org, table, userIds };
}

/** An organization of the member's own (POST /organizations with their personal token), and its token. */
async function ownOrganizationOf(token: string): Promise<{ organizationId: string; token: string }> {
  const res = await as(h.app, token)
    .post('/organizations')
    .send({ name: uniqueName('Side org') });
  expectStatus(res, 201);
  return { organizationId: res.body.id, token: res.body.token.token };
}

/** Everything the recipient can read over the alias: records, a source's query and CSV, a widget's data, a workflow step. */
async function recipientReads(p: { organizationId: string; token: string }, alias: string, source: Json, widgetId: string) {
  const query = { query: { measures: [`${source.servingRelation}.count`], dimensions: [], timeDimensions: [], filters: [] } };
  const step = createDataStoreActivities({ dataStores: h.services.dataStores } as never);
  return {
    table: await as(h.app, p.token).get(`/data-stores/tables/${alias}`),
    record: await as(h.app, p.token).get(`/data-stores/tables/${alias}/records/k1`),
    query: await as(h.app, p.token).post('/dashboards/analytics/query').send(query),
    csv: await as(h.app, p.token)
      .post('/dashboards/analytics/export-csv')
      .send({ ...query, title: 'sales' }),
    widget: await as(h.app, p.token).post(`/dashboards/widgets/${widgetId}/data`).send({}),
    step: await step.readDataStoreRecord({ organizationId: p.organizationId, tableName: alias, key: 'k1' }),
  };
}

/** A source over the shared table in the recipient, and a widget on it. */
async function recipientSource(p: { token: string }, ownerId: string, alias: string): Promise<{ source: Json; widgetId: string }> {
  const source = await as(h.app, p.token)
    .post('/dashboards/data-sources')
    .send({ name: uniqueName('Shared'), dataStoreTableName: alias, sharedFromOrganizationId: ownerId, recordSchema: { name: 'Sales', fields: SALES_FIELDS } });
  expectStatus(source, 201);
  const dashboard = await as(h.app, p.token)
    .post('/dashboards')
    .send({ name: uniqueName('Partner') });
  const widget = await as(h.app, p.token)
    .post(`/dashboards/${dashboard.body.id}/widgets`)
    .send({ title: 'Count', chartType: 'stat-card', dataSourceId: source.body.id, queryConfig: { measures: [`${source.body.servingRelation}.count`] } });
  expectStatus(widget, 201);
  return { source: source.body, widgetId: widget.body.id };
}

describe('who may share', () => {
  it('takes shares:admin: a developer is refused, an admin may, and the granted list says who granted each share', async () => {
    const { org, table, userIds } = await enterprise();
    const to = await createTestOrg(h.services);
    const body = { tableName: table, sharedToOrganizationId: to.organizationId };
    for (const role of ['developer', 'analyst', 'viewer'] as const) {
      expectError(await as(h.app, org.tokens[role]).post('/dashboards/shares').send(body), 403, 'missing_permission');
    }
    const created = await as(h.app, org.tokens.admin).post('/dashboards/shares').send(body);
    expectStatus(created, 201);
    expect(created.body.grantedBy).toEqual({ userId: userIds.admin, email: expect.stringMatching(/^admin-/), name: null });
    const granted = await as(h.app, org.ownerToken).get('/dashboards/shares/granted');
    expect(granted.body.map((s: Json) => [s.id, s.grantedBy?.userId])).toEqual([[created.body.id, userIds.admin]]);
    // The recipient learns nothing of who in the owner organization granted it.
    const received = await as(h.app, to.ownerToken).get('/dashboards/shares/received');
    expect(received.body[0]).not.toHaveProperty('grantedBy');
    expect(JSON.stringify(received.body)).not.toContain(userIds.admin);
    // Revoking takes the same permission.
    expectError(await as(h.app, org.tokens.developer).delete(`/dashboards/shares/${created.body.id}`), 403, 'missing_permission');
  });
});

describe('offboarding', () => {
  it("removing the member who granted a share revokes it: their own organization then reads nothing of the owner's by any path", async () => {
    const { org, table, userIds } = await enterprise();
    // The admin opens an organization of their own and shares the owner's table with it.
    const side = await ownOrganizationOf(org.tokens.admin);
    const shared = await as(h.app, org.tokens.admin)
      .post('/dashboards/shares')
      .send({ tableName: table, sharedToOrganizationId: side.organizationId, alias: 'their_sales' });
    expectStatus(shared, 201);
    const { source, widgetId } = await recipientSource(side, org.organizationId, 'their_sales');
    const before = await recipientReads(side, 'their_sales', source, widgetId);
    expect(before.table.body.data.map((r: Json) => r.key)).toEqual(['k1', 'k2']);
    expect(Number(before.query.body.data[0][`${source.servingRelation}.count`])).toBe(2);
    expect(before.step?.value).toEqual(SALES.k1);

    const removed = await as(h.app, org.ownerToken).delete(`/organization/members/${userIds.admin}`);
    expectStatus(removed, 200);
    expect(removed.body).toMatchObject({ userId: userIds.admin, sharesRevoked: 1, sharesKept: 0 });

    const after = await recipientReads(side, 'their_sales', source, widgetId);
    expectError(after.table, 404);
    expectError(after.record, 404);
    expectError(after.query, 400, 'share_inactive');
    expectError(after.csv, 400, 'share_inactive');
    expectError(after.widget, 400, 'widget_source_unavailable');
    expect(after.step).toBeNull();
    // The source's copy of the owner's rows is gone too, not merely hidden.
    expect((await h.services.db.query(`SELECT count(*)::int AS n FROM analytics."${source.servingRelation}"`))[0].n).toBe(0);
    expect((await as(h.app, org.ownerToken).get('/dashboards/shares/granted')).body).toEqual([]);
  });

  it('an owner may keep the shares of a member who leaves, becoming their granter; nobody else may', async () => {
    const { org, table, userIds } = await enterprise();
    const to = await createTestOrg(h.services);
    const shared = await as(h.app, org.tokens.admin).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId });
    expectStatus(shared, 201);
    // An admin removing a developer may not keep anything: keeping another organization's access is an owner's decision.
    expectError(await as(h.app, org.tokens.admin).delete(`/organization/members/${userIds.developer}?keepShares=true`), 403, 'owner_required');
    expectError(await as(h.app, org.ownerToken).delete(`/organization/members/${userIds.admin}?keepShares=yes`), 400, 'validation_failed');

    const removed = await as(h.app, org.ownerToken).delete(`/organization/members/${userIds.admin}?keepShares=true`);
    expectStatus(removed, 200);
    expect(removed.body).toMatchObject({ sharesRevoked: 0, sharesKept: 1 });
    const granted = (await as(h.app, org.ownerToken).get('/dashboards/shares/granted')).body as Json[];
    expect(granted.map((s) => [s.id, s.grantedBy.userId])).toEqual([[shared.body.id, org.ownerId]]);
    expectStatus(await as(h.app, to.ownerToken).get(`/data-stores/tables/${table}`), 200);
  });

  it('demoting the granter below shares:admin revokes their shares unless an owner keeps them; a demotion that keeps the right changes nothing', async () => {
    const { org, table, userIds } = await enterprise();
    const [to, other] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
    const first = await as(h.app, org.tokens.admin).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId });
    const second = await as(h.app, org.ownerToken).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: other.organizationId });
    expectStatus(first, 201);
    expectStatus(second, 201);

    const demoted = await as(h.app, org.ownerToken).patch(`/organization/members/${userIds.admin}`).send({ role: 'developer' });
    expect(demoted.body).toMatchObject({ role: 'developer', sharesRevoked: 1, sharesKept: 0 });
    expectError(await as(h.app, to.ownerToken).get(`/data-stores/tables/${table}`), 404);
    // The owner's own share is untouched.
    expectStatus(await as(h.app, other.ownerToken).get(`/data-stores/tables/${table}`), 200);

    // Promoted again and sharing again, then demoted with keepShares: the share stays, the owner answers for it.
    await as(h.app, org.ownerToken).patch(`/organization/members/${userIds.admin}`).send({ role: 'admin' });
    const again = await as(h.app, org.tokens.admin).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId });
    expectStatus(again, 201);
    const kept = await as(h.app, org.ownerToken).patch(`/organization/members/${userIds.admin}`).send({ role: 'viewer', keepShares: true });
    expect(kept.body).toMatchObject({ role: 'viewer', sharesRevoked: 0, sharesKept: 1 });
    expectStatus(await as(h.app, to.ownerToken).get(`/data-stores/tables/${table}`), 200);

    // Owner to admin keeps shares:admin: nothing ends.
    const secondOwner = await as(h.app, org.ownerToken).patch(`/organization/members/${userIds.developer}`).send({ role: 'owner' });
    expectStatus(secondOwner, 200);
    const byOwner = await as(h.app, org.tokens.developer)
      .post('/dashboards/shares')
      .send({ tableName: table, sharedToOrganizationSuid: (await createTestOrg(h.services)).organizationSuid });
    expectStatus(byOwner, 201);
    const toAdmin = await as(h.app, org.ownerToken).patch(`/organization/members/${userIds.developer}`).send({ role: 'admin' });
    expect(toAdmin.body).toMatchObject({ sharesRevoked: 0, sharesKept: 0 });
    expect((await as(h.app, org.ownerToken).get('/dashboards/shares/granted')).body.map((s: Json) => s.id)).toContain(byOwner.body.id);
  });

  it('a share made while its granter is being removed is either revoked with them or refused: none outlives the membership', async () => {
    for (let round = 0; round < 4; round++) {
      const { org, table, userIds } = await enterprise();
      const to = await createTestOrg(h.services);
      const [created] = await Promise.all([
        as(h.app, org.tokens.admin).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId }),
        as(h.app, org.ownerToken).delete(`/organization/members/${userIds.admin}`),
      ]);
      expect([201, 401, 403]).toContain(created.status);
      const open: Array<{ n: number }> = await h.services.db.query(
        `SELECT count(*)::int AS n FROM data_store_shares WHERE organization_id = $1 AND user_id = $2 AND revoked_at IS NULL`,
        [org.organizationId, userIds.admin],
      );
      expect(open[0].n).toBe(0);
    }
  });
});

describe('a closed source', () => {
  it("answers share_inactive to re-index, rebuild and schema refresh, without waiting on the owner's table lock", async () => {
    const { org, table } = await enterprise();
    const to = await createTestOrg(h.services);
    const shared = await as(h.app, org.ownerToken).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: to.organizationId });
    const { source } = await recipientSource({ token: to.ownerToken }, org.organizationId, table);
    expectStatus(await as(h.app, org.ownerToken).delete(`/dashboards/shares/${shared.body.id}`), 200);

    // The owner's writes hold the table's lock: a closed source that wanted it would wait here, and show as a waiter.
    const holder = new Client({ connectionString: (h.services.db.options as PostgresConnectionOptions).url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(analytics.table_lock_key($1, $2))', [org.organizationId, table]);
      const base = `/dashboards/data-sources/${source.id}`;
      const calls: Array<[string, () => request.Test]> = [
        ['reindex', () => as(h.app, to.ownerToken).post(`${base}/reindex`)],
        ['refresh-schema', () => as(h.app, to.ownerToken).post(`${base}/refresh-schema`)],
        [
          'rebuild (a new time dimension)',
          () =>
            as(h.app, to.ownerToken)
              .patch(base)
              .send({
                confirmTimeFieldRekey: true,
                recordSchema: {
                  name: 'Sales',
                  fields: { ...SALES_FIELDS, at: { type: 'date', label: 'At' }, amount: { type: 'date', label: 'When', timeDimension: true } },
                },
              }),
        ],
      ];
      for (const [name, call] of calls) {
        const answered = call().then((res) => res);
        const waiting = eventually(
          async () => (await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0].n as number,
          (n) => n > 0,
          60_000,
        ).then(() => 'waited on the lock' as const);
        const first = await Promise.race([answered, waiting]);
        if (first === 'waited on the lock') throw new Error(`${name} waited on the owner's table lock`);
        expect([name, first.status, first.body.error?.code]).toEqual([name, 400, 'share_inactive']);
      }
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});
