import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError } from '@temporalio/client';
import { as, createConnection, expectError, expectStatus } from './harness';
import { createTestOrg, uniqueName } from './factories';
import { customSource, getSource, orgWithTwilio, startFeedStack, syncRunClosed, toggle, toggleTwilioOn, sync, type FeedStack } from './data-feed-fixtures';

/** Toggling feeds on and off (interface.md 3, 4.4): sources, tables and schedules, and every status of the toggle and sync routes. */
let stack: FeedStack;
beforeAll(async () => {
  stack = await startFeedStack();
}, 60_000);
afterAll(() => stack.close());

const schedule = (id: string) => stack.h.services.temporal.client.schedule.getHandle(`feed-sync:${id}`);
const minutes = (n: number) => n * 60_000;

describe('GET /dashboards/data-feeds/catalog', () => {
  it('names every built-in feed with its connection type and the fields the source over it gets', async () => {
    const { app } = stack.h;
    const org = await createTestOrg(stack.h.services);
    const res = await as(app, org.tokens.viewer).get('/dashboards/data-feeds/catalog');
    expectStatus(res, 200);
    expect(res.body.map((f: { key: string }) => f.key).sort()).toEqual(['github:issues', 'hubspot:deals', 'twilio:calls']);
    const twilio = res.body.find((f: { key: string }) => f.key === 'twilio:calls');
    expect(twilio.connectionType).toBe('twilio');
    // The fields are the ones a toggled source is created with.
    const { connection, org: owner } = await orgWithTwilio(stack);
    const source = await getSource(app, owner, await toggleTwilioOn(app, owner, connection, 15));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    const fields = Object.entries(source.recordSchema.fields as Record<string, { type: string; label: string }>).map(([name, f]) => ({
      name,
      label: f.label,
      type: f.type,
    }));
    expect([...twilio.fields].sort(byName)).toEqual(fields.sort(byName));
  });
});

describe('POST /dashboards/data-feeds/toggle', () => {
  it('on creates one source over a table of its own, a schedule at the interval and a first sync; off pauses; on again reuses them all', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const id = await toggleTwilioOn(app, org, connection, 15);

    const source = await getSource(app, org, id);
    expect(source).toMatchObject({
      type: 'twilio:calls',
      connectionId: connection.id,
      connectionName: connection.name,
      enabled: true,
      syncConfig: expect.objectContaining({ syncIntervalMinutes: 15 }),
    });
    expect(source.recordSchema.fields.startTime).toMatchObject({ type: 'date', timeDimension: true });
    let described = await schedule(id).describe();
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: minutes(15) })]);
    expect(described.state.paused).toBe(false);
    expect(described.policies.overlap).toBe('SKIP');
    expect(described.action).toMatchObject({ workflowType: 'dataFeedScheduledSync', workflowId: `feed-sync-scheduled:${id}` });
    expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['OrganizationId', org.organizationId],
        ['DataSourceId', id],
        ['FeedKey', 'twilio:calls'],
      ]),
    );
    // The first sync started at once, under the source's one workflow id, with the same search attributes.
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    const run = await stack.h.services.temporal.client.workflow.getHandle(`feed-sync:${id}`).describe();
    expect(run.typedSearchAttributes.get(described.typedSearchAttributes.getAll()[0].key)).toBeDefined();
    expect((await getSource(app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncAt: expect.any(String) });

    const off = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
    expectStatus(off, 201);
    expect(off.body).toEqual({ enabled: false, dataSourceId: id });
    expect((await schedule(id).describe()).state.paused).toBe(true);
    expect((await getSource(app, org, id)).enabled).toBe(false);

    expect(await toggleTwilioOn(app, org, connection, 30)).toBe(id);
    described = await schedule(id).describe();
    expect(described.state.paused).toBe(false);
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: minutes(30) })]);
    const again = await getSource(app, org, id);
    expect(again).toMatchObject({ enabled: true, syncConfig: expect.objectContaining({ syncIntervalMinutes: 30 }) });
    const sources = (await as(app, org.ownerToken).get('/dashboards/data-sources')).body as Array<{ type: string; dataStoreTableName: string }>;
    expect(sources.filter((s) => s.type === 'twilio:calls')).toHaveLength(1);
    const tables = (await as(app, org.ownerToken).get('/data-stores/tables?limit=1000')).body.data as Array<{ tableName: string }>;
    expect(tables.filter((t) => t.tableName === source.dataStoreTableName)).toHaveLength(1);
    await syncRunClosed(stack.h, id);
  });

  it('off works after the connection was deleted or renamed; on again without an interval keeps the one set', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const id = await toggleTwilioOn(app, org, connection, 45);
    await syncRunClosed(stack.h, id);
    // On again without syncIntervalMinutes: the 45 minutes stay.
    expect(await toggleTwilioOn(app, org, connection)).toBe(id);
    expect((await getSource(app, org, id)).syncConfig.syncIntervalMinutes).toBe(45);
    expect((await schedule(id).describe()).spec.intervals).toEqual([expect.objectContaining({ every: minutes(45) })]);
    await syncRunClosed(stack.h, id);

    // Renamed: off with the old name still finds the source.
    expectStatus(
      await as(app, org.ownerToken)
        .patch(`/connections/${connection.id}`)
        .send({ name: uniqueName('renamed') }),
      200,
    );
    const off = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
    expectStatus(off, 201);
    expect(off.body).toEqual({ enabled: false, dataSourceId: id });
    expect((await schedule(id).describe()).state.paused).toBe(true);

    // Deleted: off again still answers the source.
    expectStatus(await as(app, org.ownerToken).delete(`/connections/${connection.id}`), 200);
    const again = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
    expectStatus(again, 201);
    expect(again.body).toEqual({ enabled: false, dataSourceId: id });
    expect((await getSource(app, org, id)).enabled).toBe(false);
  });

  it('two toggles at once make one source and one schedule', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const body = { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: true, syncIntervalMinutes: 10_080 };
    const answers = await Promise.all([toggle(app, org, body), toggle(app, org, body), toggle(app, org, body)]);
    for (const res of answers) expectStatus(res, 201);
    const ids = new Set(answers.map((r) => r.body.dataSourceId));
    expect(ids.size).toBe(1);
    const sources = (await as(app, org.ownerToken).get('/dashboards/data-sources')).body as Array<{ type: string }>;
    expect(sources.filter((s) => s.type === 'twilio:calls')).toHaveLength(1);
    const [id] = ids;
    expect((await schedule(id).describe()).state.paused).toBe(false);
    await syncRunClosed(stack.h, id);
  });

  it('off for a feed never turned on answers dataSourceId null and creates nothing', async () => {
    const { org, connection } = await orgWithTwilio(stack);
    const res = await toggle(stack.h.app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
    expectStatus(res, 201);
    expect(res.body).toEqual({ enabled: false, dataSourceId: null });
    expect((await as(stack.h.app, org.ownerToken).get('/dashboards/data-sources')).body.filter((s: { builtIn: boolean }) => !s.builtIn)).toEqual([]);
  });

  it('400 with a distinct code for each bad request, 403 without dashboards:admin', async () => {
    const { app, services } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const other = await orgWithTwilio(stack);
    const github = await createConnection(app, org, { name: uniqueName('gh'), type: 'github-oauth', config: stack.stubs.github.connectionConfig });
    const base = { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: true };

    expectError(await toggle(app, org, { ...base, feedKey: 'twilio:faxes' }), 400, 'unknown_feed');
    expectError(await toggle(app, org, { ...base, connectionId: randomUUID() }), 400, 'unknown_connection');
    expectError(await toggle(app, org, { ...base, connectionId: 'not-a-uuid' }), 400, 'unknown_connection');
    // Another organization's connection is unknown here.
    expectError(await toggle(app, org, { ...base, connectionId: other.connection.id, connectionName: other.connection.name }), 400, 'unknown_connection');
    expectError(await toggle(app, org, { ...base, connectionName: 'someone_else' }), 400, 'connection_name_mismatch');
    expectError(await toggle(app, org, { ...base, connectionId: github.id, connectionName: github.name }), 400, 'connection_type_mismatch');
    for (const syncIntervalMinutes of [0, 1.5, 10_081, -5]) {
      expectError(await toggle(app, org, { ...base, syncIntervalMinutes }), 400, 'invalid_sync_interval');
    }
    expectError(await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name }), 400, 'validation_failed');
    expectError(await as(app, org.tokens.viewer).post('/dashboards/data-feeds/toggle').send(base), 403, 'missing_permission');
    // None of them created anything.
    expect((await as(app, org.ownerToken).get('/dashboards/data-sources')).body.filter((s: { builtIn: boolean }) => !s.builtIn)).toEqual([]);
    expect(await services.feedSources.findFeedSource(org.organizationId, 'twilio:calls', connection.id)).toBeNull();
  });

  it('deleting a feed source deletes its schedule', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const id = await toggleTwilioOn(app, org, connection, 10_080);
    await syncRunClosed(stack.h, id);
    expectStatus(await as(app, org.ownerToken).delete(`/dashboards/data-sources/${id}`), 200);
    await expect(schedule(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    // On again: a new source over the kept table, with a schedule of its own.
    const next = await toggleTwilioOn(app, org, connection, 10_080);
    expect(next).not.toBe(id);
    expect((await schedule(next).describe()).state.paused).toBe(false);
    await syncRunClosed(stack.h, next);
  });
});

describe('POST /dashboards/data-sources/{id}/sync refusals', () => {
  it('404 unknown source, 400 bad dates, 500 for custom, disabled and connection-less sources, 403 for viewers', async () => {
    const { app, services } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const id = await toggleTwilioOn(app, org, connection, 10_080);
    await syncRunClosed(stack.h, id);

    expectError(await sync(app, org, randomUUID()), 404, 'not_found');
    const stranger = await createTestOrg(services);
    expectError(await sync(app, stranger, id), 404, 'not_found');
    expectError(await sync(app, org, id, { startDate: '2025-02-02T00:00:00Z', endDate: '2025-02-01T00:00:00Z' }), 400, 'invalid_sync_window');
    expectError(await sync(app, org, id, { startDate: 'yesterday' }), 400, 'validation_failed');
    expectError(await as(app, org.tokens.viewer).post(`/dashboards/data-sources/${id}/sync`).send({}), 403, 'missing_permission');

    const customId = await customSource(app, org);
    expectError(await sync(app, org, customId), 500, 'no_sync_workflow');

    expectStatus(await as(app, org.ownerToken).patch(`/dashboards/data-sources/${id}`).send({ enabled: false }), 200);
    const disabled = await sync(app, org, id);
    expectError(disabled, 500, 'source_disabled');
    expect(disabled.body.error.message).toMatch(/disabled.*toggle its feed on/);
    expect(disabled.body.error.message).not.toContain('PATCH');
    expectStatus(await as(app, org.ownerToken).patch(`/dashboards/data-sources/${id}`).send({ enabled: true }), 200);

    // A feed source whose connection reference is gone (no route makes one; the contract names the case).
    await services.db.query('UPDATE data_sources SET connection_id = NULL, connection_name = NULL WHERE id = $1', [id]);
    expectError(await sync(app, org, id), 500, 'source_without_connection');
  });
});
