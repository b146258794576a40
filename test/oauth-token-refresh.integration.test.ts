import { createOutboundHttp, type OutboundHttp } from '../src/outbound/outbound-http';
import { createActivityDeps } from '../src/app/activity-deps';
import { OAuthRefreshRefused, OAuthRefreshUnavailable } from '../src/connections/oauth-errors';
import { OAuthTokens } from '../src/connections/oauth-tokens';
import { TokenRefreshLeases } from '../src/connections/token-refresh-leases.repository';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { as, connectionConfig, createConnection, type Harness, startHarness } from './harness';
import { type Grant, type OAuthTokenStub, startOAuthTokenStub, type TokenVendor } from './stubs/oauth-token-stub';

/**
 * OAuth access-token refresh (src/connections/oauth-tokens.ts) over the real
 * PostgreSQL, against a token endpoint stub speaking GitHub's and HubSpot's
 * protocol. A second OAuthTokens, with its own in-process state and HTTP
 * client, stands for another process (a worker beside the API): what
 * separates processes is memory, and the lease is in the database they share.
 */

let h: Harness;
let stub: OAuthTokenStub;
let org: TestOrg;
let otherHttp: OutboundHttp;

beforeAll(async () => {
  stub = await startOAuthTokenStub();
  h = await startHarness({
    configure: (config) => {
      config.vendors.tokenUrls = stub.tokenUrls;
      config.steps.httpAllowList = [stub.host];
    },
  });
  org = await createTestOrg(h.services);
  otherHttp = createOutboundHttp({ allowList: [stub.host], maxResponseBytes: 1_000_000, maxRedirects: 0 });
});
afterAll(async () => {
  await otherHttp?.close();
  await h?.close();
  await stub?.close();
});

const TYPES: Record<TokenVendor, string> = { github: 'github-oauth', hubspot: 'hubspot-oauth' };

/** A connection holding a grant's first tokens, created through the API. */
async function connect(grant: Grant, config: Record<string, unknown> = grant.config()): Promise<string> {
  const created = await createConnection(h.app, org, { name: uniqueName('oauth'), type: TYPES[grant.vendor], config });
  return created.id as string;
}

/** A grant whose first access token expires in a minute: inside the 5-minute margin. */
const expiring = (vendor: TokenVendor = 'github') => stub.authorize(vendor, { firstLifetimeSeconds: 60 });

async function row(id: string): Promise<{ config_encrypted: string; token_refresh_until: Date | null }> {
  const rows = await h.services.db.query(`SELECT config_encrypted, token_refresh_until FROM connections WHERE id = $1`, [id]);
  return rows[0];
}

/** Another process's OAuthTokens: its own in-process flights, its own HTTP client; `lost` settles when it finds the lease taken. */
function otherProcess() {
  let lose!: () => void;
  const lost = new Promise<void>((resolve) => (lose = resolve));
  const leases = new TokenRefreshLeases(h.services.db);
  const take = leases.take.bind(leases);
  leases.take = async (...args) => {
    const lease = await take(...args);
    if (!lease) lose();
    return lease;
  };
  return { tokens: new OAuthTokens(h.services.connections, leases, otherHttp, stub.tokenUrls), lost };
}

async function failureOf(work: Promise<unknown>): Promise<Error> {
  return work.then(
    () => {
      throw new Error('expected the refresh to fail');
    },
    (err: Error) => err,
  );
}

test('a token about to expire is refreshed and stored: new access token, rotated refresh token, expiry, still bound to its connection', async () => {
  const grant = expiring();
  const first = grant.config();
  const id = await connect(grant);
  const before = Date.now();

  const found = await h.services.oauthTokens.current(org.organizationId, id);

  expect(grant.requests).toBe(1);
  expect(found?.config.accessToken).toBe(grant.accessToken);
  expect(found?.config.accessToken).not.toBe(first.accessToken);
  expect(stub.accepts(found?.config.accessToken as string)).toBe(true);
  expect(found?.config.refreshToken).toBe(grant.refreshToken);
  expect(found?.config.refreshToken).not.toBe(first.refreshToken);
  const expiresAt = Date.parse(found?.config.expiresAt as string);
  expect(expiresAt).toBeGreaterThanOrEqual(before + 8 * 3600_000 - 1000);
  expect(expiresAt).toBeLessThanOrEqual(Date.now() + 8 * 3600_000 + 1000);
  expect(await connectionConfig(h.app, org, id)).toEqual(found?.config);

  const sent = stub.requests.filter((r) => new URLSearchParams(r.body).get('client_id') === grant.clientId);
  expect(sent[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(sent[0].headers['user-agent']).toMatch(/^Flowbase\/\d/);

  const stored = await row(id);
  expect(stored.token_refresh_until).toBeNull();
  await expect(h.services.box.decryptJson(org.organizationId, `connection:${id}`, stored.config_encrypted)).resolves.toEqual(found?.config);
  const otherOrg = await createTestOrg(h.services);
  await expect(h.services.box.decryptJson(otherOrg.organizationId, `connection:${id}`, stored.config_encrypted)).rejects.toThrow();
  await expect(h.services.box.decryptJson(org.organizationId, `connection:${otherOrg.organizationId}`, stored.config_encrypted)).rejects.toThrow();
});

test('a fresh token, and a type without a refresh endpoint, are returned as stored without asking anyone', async () => {
  const grant = stub.authorize('github');
  const id = await connect(grant);
  const { config_encrypted } = await row(id);
  const found = await h.services.oauthTokens.current(org.organizationId, id);
  expect(found?.config).toEqual(grant.config());
  expect(grant.requests).toBe(0);
  expect((await row(id)).config_encrypted).toBe(config_encrypted);

  // Expiring, but Google is not in the endpoint table.
  const googleConfig = expiring().config();
  const google = await createConnection(h.app, org, { name: uniqueName('google'), type: 'google-oauth', config: googleConfig });
  const requests = stub.requests.length;
  const googleFound = await h.services.oauthTokens.current(org.organizationId, google.id);
  expect(googleFound?.config.accessToken).toBe(googleConfig.accessToken);
  expect(googleFound?.config).toEqual(await connectionConfig(h.app, org, google.id));
  expect(stub.requests.length).toBe(requests);
});

test('a token the vendor rejected is refreshed once; the same rejected token later finds the new one stored', async () => {
  const grant = stub.authorize('hubspot');
  const first = grant.config();
  const id = await connect(grant);

  const refreshed = await h.services.oauthTokens.current(org.organizationId, id, { rejectedAccessToken: first.accessToken as string });
  expect(grant.requests).toBe(1);
  expect(refreshed?.config.accessToken).toBe(grant.accessToken);
  expect(refreshed?.config.accessToken).not.toBe(first.accessToken);
  // HubSpot keeps its refresh token.
  expect(refreshed?.config.refreshToken).toBe(first.refreshToken);

  // A second caller that was refused the old token meanwhile (another process): no second refresh.
  const again = await otherProcess().tokens.current(org.organizationId, id, { rejectedAccessToken: first.accessToken as string });
  expect(grant.requests).toBe(1);
  expect(again?.config.accessToken).toBe(refreshed?.config.accessToken);
});

test('many concurrent calls in two processes make exactly one token request, and all get its token', async () => {
  const grant = expiring();
  const id = await connect(grant);
  const other = otherProcess();
  const held = grant.hold();

  const here = Array.from({ length: 8 }, () => h.services.oauthTokens.current(org.organizationId, id));
  await held.arrived;
  const there = Array.from({ length: 8 }, () => other.tokens.current(org.organizationId, id));
  await other.lost; // the other process found the lease taken and is waiting for it
  held.release();
  const all = await Promise.all([...here, ...there]);

  expect(grant.requests).toBe(1);
  const tokens = new Set(all.map((found) => found?.config.accessToken));
  expect([...tokens]).toEqual([grant.accessToken]);
  expect((await connectionConfig(h.app, org, id)).accessToken).toBe(grant.accessToken);
  expect((await row(id)).token_refresh_until).toBeNull();
});

test.each<TokenVendor>(['github', 'hubspot'])(
  'a revoked %s refresh token fails as OAuthRefreshRefused, asking to reconnect, naming no secret',
  async (vendor) => {
    const grant = expiring(vendor);
    const config = grant.config();
    const id = await connect(grant);
    grant.revoke();

    const err = await failureOf(h.services.oauthTokens.current(org.organizationId, id));
    expect(err).toBeInstanceOf(OAuthRefreshRefused);
    expect(err).toMatchObject({ vendor, connectionId: id, retryable: false });
    expect(err.message).toContain(`PATCH /connections/${id}`);
    expect(err.message).toMatch(vendor === 'github' ? /bad_refresh_token/ : /BAD_REFRESH_TOKEN/);
    for (const secret of [config.accessToken, config.refreshToken, config.clientSecret] as string[]) expect(err.message).not.toContain(secret);
    expect(err.message).not.toContain('grant_type');
    expect((await row(id)).token_refresh_until).toBeNull();
    expect(await connectionConfig(h.app, org, id)).toEqual(config);
  },
);

test('a 503 from the token endpoint fails as OAuthRefreshUnavailable and releases the lease, so a later call refreshes', async () => {
  const grant = expiring();
  const id = await connect(grant);
  grant.failWith(503);

  const err = await failureOf(h.services.oauthTokens.current(org.organizationId, id));
  expect(err).toBeInstanceOf(OAuthRefreshUnavailable);
  expect(err).toMatchObject({ vendor: 'github', status: 503, retryable: true });
  expect(err.message).not.toContain(grant.refreshToken!);
  expect((await row(id)).token_refresh_until).toBeNull();

  // Another process, right away: the lease is free, so it refreshes instead of waiting out 30 s.
  const found = await otherProcess().tokens.current(org.organizationId, id);
  expect(grant.requests).toBe(2);
  expect(found?.config.accessToken).toBe(grant.accessToken);
});

test('a config replaced with PATCH during a slow refresh wins over the refreshed token', async () => {
  const grant = expiring();
  const id = await connect(grant);
  const held = grant.hold();
  const refreshing = h.services.oauthTokens.current(org.organizationId, id);
  await held.arrived;

  const reconnected = stub.authorize('github').config();
  const res = await as(h.app, org.ownerToken).patch(`/connections/${id}`).send({ config: reconnected });
  expect(res.status).toBe(200);
  held.release();

  const found = await refreshing;
  expect(grant.requests).toBe(1);
  expect(found?.config).toEqual(reconnected);
  expect(await connectionConfig(h.app, org, id)).toEqual(reconnected);
  expect((await row(id)).token_refresh_until).toBeNull();
});

test("another organization's connection id is not found, and nothing is refreshed", async () => {
  const grant = expiring();
  const id = await connect(grant);
  const otherOrg = await createTestOrg(h.services);
  await expect(h.services.oauthTokens.current(otherOrg.organizationId, id)).resolves.toBeUndefined();
  expect(grant.requests).toBe(0);
  expect((await row(id)).token_refresh_until).toBeNull();
});

test("the worker's feeds.connections.fresh and a step's $connections return refreshed configs, their new secrets masked", async () => {
  const deps = createActivityDeps({ db: h.services.db, logger: h.services.logger, keyring: h.services.keyring, config: h.services.config });
  try {
    const grant = expiring();
    const id = await connect(grant);
    const fresh = await deps.feeds.connections.fresh(org.organizationId, id);
    expect(fresh?.config.accessToken).toBe(grant.accessToken);
    expect(fresh?.secretValues).toEqual(expect.arrayContaining([grant.accessToken, grant.refreshToken]));
    expect(await deps.feeds.connections.fresh(org.organizationId, '00000000-0000-4000-8000-000000000000')).toBeUndefined();

    const byName = expiring('hubspot');
    const name = uniqueName('crm');
    await createConnection(h.app, org, { name, type: 'hubspot-oauth', config: byName.config() });
    const step = await deps.secrets.connectionByName(org.organizationId, name);
    expect(byName.requests).toBe(1);
    expect(step?.config.accessToken).toBe(byName.accessToken);
    expect(step?.secretValues).toContain(byName.accessToken);
  } finally {
    await deps.close();
  }
});
