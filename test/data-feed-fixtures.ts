import type { Express } from 'express';
import type { Config } from '../src/config/config';
import { as, createConnection, expectStatus, startHarness, type Harness } from './harness';
import { createTestOrg, eventually, uniqueName, type TestOrg } from './factories';
import type { OAuthTokenStub } from './stubs/oauth-token-stub';
import { startVendorStubs, type VendorStubs } from './stubs/vendor-apis';

type Json = Record<string, any>;

/**
 * What the data feed tests share: the vendor stubs (config.vendors.baseUrls
 * point at them), a harness whose worker may reach them, and helpers to
 * toggle feeds and follow their syncs. The stubs' records are shared by every
 * test of a file, so each test adds and syncs records in a window of its own.
 */
export interface FeedStack {
  h: Harness;
  stubs: VendorStubs;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

/** `tokens`: an OAuth token endpoint stub both the API and the worker refresh tokens at; `configure`: more settings of the test's own. */
export async function startFeedStack(options: { worker?: boolean; tokens?: OAuthTokenStub; configure?: (config: Config) => void } = {}): Promise<FeedStack> {
  const stubs = await startVendorStubs();
  const { tokens } = options;
  const allowList = [...stubs.allowList, ...(tokens ? [tokens.host] : [])];
  const h = await startHarness({
    configure: (c) => {
      c.vendors.baseUrls = { ...stubs.urls };
      if (tokens) {
        c.vendors.tokenUrls = { ...tokens.tokenUrls };
        c.steps.httpAllowList = allowList;
      }
      options.configure?.(c);
    },
  });
  let worker: { stop(): Promise<void> } | undefined;
  const stack: FeedStack = {
    h,
    stubs,
    startWorker: async () => {
      worker = await h.startWorker({ httpAllowList: allowList });
    },
    stopWorker: async () => {
      await worker?.stop();
      worker = undefined;
    },
    close: async () => {
      await h.close();
      await stubs.close();
    },
  };
  if (options.worker !== false) await stack.startWorker();
  return stack;
}

/** A fresh organization with a twilio connection that authenticates against the stub. */
export async function orgWithTwilio(stack: FeedStack): Promise<{ org: TestOrg; connection: Json }> {
  const org = await createTestOrg(stack.h.services);
  const connection = await createConnection(stack.h.app, org, { name: uniqueName('twilio'), type: 'twilio', config: stack.stubs.twilio.connectionConfig });
  return { org, connection };
}

export function toggle(app: Express, org: TestOrg, body: Json) {
  return as(app, org.ownerToken).post('/dashboards/data-feeds/toggle').send(body);
}

/** Toggles twilio:calls on over the connection; fails the test unless 201; returns the data source id. */
export async function toggleTwilioOn(app: Express, org: TestOrg, connection: Json, syncIntervalMinutes?: number): Promise<string> {
  const res = await toggle(app, org, {
    feedKey: 'twilio:calls',
    connectionId: connection.id,
    connectionName: connection.name,
    enabled: true,
    syncIntervalMinutes,
  });
  expectStatus(res, 201);
  expect(res.body).toEqual({ enabled: true, dataSourceId: expect.any(String) });
  return res.body.dataSourceId;
}

export async function getSource(app: Express, org: TestOrg, id: string): Promise<Json> {
  const res = await as(app, org.ownerToken).get(`/dashboards/data-sources/${id}`);
  expectStatus(res, 200);
  return res.body;
}

/** Polls the source until no sync runs (and one has run); returns it. */
export function settledSource(app: Express, org: TestOrg, id: string, timeoutMs = 60_000): Promise<Json> {
  return eventually(
    () => getSource(app, org, id),
    (s) => s.syncConfig?.lastSyncStatus === 'success' || s.syncConfig?.lastSyncStatus === 'failed',
    timeoutMs,
  );
}

/** Waits until the sync run of the source (workflow feed-sync:<id>) is closed; returns its status name. */
export async function syncRunClosed(h: Harness, dataSourceId: string, timeoutMs = 60_000): Promise<string> {
  const handle = h.services.temporal.client.workflow.getHandle(`feed-sync:${dataSourceId}`);
  const described = await eventually(
    () => handle.describe(),
    (d) => d.status.name !== 'RUNNING',
    timeoutMs,
  );
  return described.status.name;
}

/** The live records of a table, as the owner reads them (up to 1,000). */
export async function tableRecords(app: Express, org: TestOrg, table: string): Promise<Json[]> {
  const res = await as(app, org.ownerToken).get(`/data-stores/tables/${encodeURIComponent(table)}?limit=1000`);
  expectStatus(res, 200);
  return res.body.data;
}

export function sync(app: Express, org: TestOrg, id: string, body: Json = {}) {
  return as(app, org.ownerToken).post(`/dashboards/data-sources/${id}/sync`).send(body);
}

/** The stub's Twilio Calls list requests, in order. */
export function callListRequests(stubs: VendorStubs) {
  return stubs.requests.filter((r) => r.vendor === 'twilio' && r.path.endsWith('/Calls.json'));
}

/** A `custom` data source (no feed) over a new table of the organization; returns its id. */
export async function customSource(app: Express, org: TestOrg): Promise<string> {
  const table = uniqueName('plain');
  expectStatus(await as(app, org.ownerToken).post('/data-stores/tables').send({ tableName: table }), 201);
  const res = await as(app, org.ownerToken)
    .post('/dashboards/data-sources')
    .send({
      name: 'Plain',
      type: 'custom',
      dataStoreTableName: table,
      recordSchema: { name: 'plain', fields: { at: { type: 'date', label: 'At', timeDimension: true } } },
    });
  expectStatus(res, 201);
  return res.body.id;
}
