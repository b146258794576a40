import { as, connectionConfig, createConnection, expectStatus } from './harness';
import { createTestOrg, uniqueName, type TestOrg } from './factories';
import { getSource, settledSource, startFeedStack, sync, syncRunClosed, toggle, type FeedStack } from './data-feed-fixtures';
import { startOAuthTokenStub, type Grant, type OAuthTokenStub, type TokenVendor } from './stubs/oauth-token-stub';
import { httpStep, stepOf, workflowApi } from './workflow-api';
import { TokenRefreshLeases } from '../src/connections/token-refresh-leases.repository';

type Json = Record<string, any>;

/**
 * OAuth feeds whose access tokens expire, as HubSpot's (30 minutes) and
 * GitHub's user tokens (8 hours, refresh tokens rotated) do. The vendor API
 * stubs accept only tokens the token endpoint stub issued and that have not
 * expired, so a sync succeeds only through a refresh.
 */
let tokens: OAuthTokenStub;
let stack: FeedStack;
beforeAll(async () => {
  tokens = await startOAuthTokenStub();
  stack = await startFeedStack({ tokens });
  stack.stubs.hubspot.setTokenCheck((t) => tokens.accepts(t));
  stack.stubs.github.setTokenCheck((t) => tokens.accepts(t));
}, 60_000);
afterAll(async () => {
  await stack.close();
  await tokens.close();
});

const FEEDS: Record<TokenVendor, { feedKey: string; type: string }> = {
  hubspot: { feedKey: 'hubspot:deals', type: 'hubspot-oauth' },
  github: { feedKey: 'github:issues', type: 'github-oauth' },
};

async function oauthFeed(vendor: TokenVendor, grant: Grant): Promise<{ org: TestOrg; connection: Json; id: string }> {
  const { feedKey, type } = FEEDS[vendor];
  const org = await createTestOrg(stack.h.services);
  const config = vendor === 'hubspot' ? { ...grant.config(), portalId: '12345' } : grant.config();
  const connection = await createConnection(stack.h.app, org, { name: uniqueName(type.replace(/-/g, '_')), type, config });
  const res = await toggle(stack.h.app, org, {
    feedKey,
    connectionId: connection.id,
    connectionName: connection.name,
    enabled: true,
    syncIntervalMinutes: 10_080,
  });
  expectStatus(res, 201);
  return { org, connection, id: res.body.dataSourceId };
}

const bearersSentTo = (vendor: TokenVendor, from: number) =>
  stack.stubs.requests
    .slice(from)
    .filter((r) => r.vendor === vendor)
    .map((r) => r.headers.authorization);

describe('OAuth access tokens of feed connections', () => {
  it('refreshes a HubSpot token about to expire before the sync uses it, and stores the new token under the connection', async () => {
    stack.stubs.hubspot.addDeals(2, { start: new Date(Date.now() - 3_600_000) });
    const grant = tokens.authorize('hubspot', { firstLifetimeSeconds: 60 });
    const first = grant.accessToken;
    const before = stack.stubs.requests.length;
    const { org, connection, id } = await oauthFeed('hubspot', grant);
    expect((await settledSource(stack.h.app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success' });

    expect(grant.requests).toBe(1);
    expect(grant.accessToken).not.toBe(first);
    const bearers = bearersSentTo('hubspot', before);
    expect(bearers.length).toBeGreaterThan(0);
    expect(new Set(bearers)).toEqual(new Set([`Bearer ${grant.accessToken}`]));
    const stored = await connectionConfig(stack.h.app, org, connection.id);
    expect(stored).toMatchObject({ accessToken: grant.accessToken, refreshToken: grant.refreshToken, clientId: grant.clientId });
    const expiresIn = Date.parse(stored.expiresAt as string) - Date.now();
    expect(expiresIn).toBeGreaterThan(25 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 60_000);

    // The next sync finds the token fresh: no second refresh.
    expectStatus(await sync(stack.h.app, org, id), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect(grant.requests).toBe(1);
  });

  it('refreshes once when the vendor answers 401 to a token that has not reached its expiry, and retries the page', async () => {
    const grant = tokens.authorize('hubspot');
    const revokedAtVendor = grant.accessToken;
    stack.stubs.hubspot.setTokenCheck((t) => t !== revokedAtVendor && tokens.accepts(t));
    try {
      const { org, id } = await oauthFeed('hubspot', grant);
      expect((await settledSource(stack.h.app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success' });
      expect(grant.requests).toBe(1);
    } finally {
      stack.stubs.hubspot.setTokenCheck((t) => tokens.accepts(t));
    }
  });

  it("keeps GitHub's rotated refresh token: the used one is retired, the stored one is the new one", async () => {
    const grant = tokens.authorize('github', { firstLifetimeSeconds: 30 });
    const original = grant.refreshToken;
    const before = stack.stubs.requests.length;
    const { org, connection, id } = await oauthFeed('github', grant);
    expect((await settledSource(stack.h.app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success' });
    const stored = await connectionConfig(stack.h.app, org, connection.id);
    expect(stored.refreshToken).toBe(grant.refreshToken);
    expect(stored.refreshToken).not.toBe(original);
    expect(bearersSentTo('github', before).every((b) => b === `Bearer ${grant.accessToken}`)).toBe(true);
    const refresh = tokens.requests.find((r) => r.path === '/login/oauth/access_token' && new URLSearchParams(r.body).get('client_id') === grant.clientId)!;
    expect(refresh.headers['user-agent']).toMatch(/^Flowbase\//);
    expect(refresh.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });

  it('fails the sync with a message to reconnect when the vendor has revoked the refresh token, with no secret in it', async () => {
    const grant = tokens.authorize('hubspot', { firstLifetimeSeconds: 1 });
    const refreshToken = grant.refreshToken!;
    grant.revoke();
    const { org, id } = await oauthFeed('hubspot', grant);
    const source = await settledSource(stack.h.app, org, id);
    expect(source.syncConfig.lastSyncStatus).toBe('failed');
    expect(source.syncConfig.lastSyncError).toMatch(/reconnect/i);
    for (const secret of [refreshToken, grant.clientSecret, grant.accessToken]) expect(source.syncConfig.lastSyncError).not.toContain(secret);
    const res = await as(stack.h.app, org.ownerToken).get(`/dashboards/data-sources/${id}/syncs`);
    expectStatus(res, 200);
    expect(res.body.data[0]).toMatchObject({ status: 'failed', error: source.syncConfig.lastSyncError });
  });

  it('refreshes once when the API process and a sync in the worker need the same token at the same moment', async () => {
    const grant = tokens.authorize('hubspot', { firstLifetimeSeconds: 60 });
    const held = grant.hold();
    const { org, connection, id } = await oauthFeed('hubspot', grant);
    await held.arrived;
    // The worker's refresh is in flight and holds the lease: the API's own OAuthTokens finds it taken and waits on it
    // (it polls the lease) rather than sending a second request.
    const polled = new Promise<void>((resolve) => {
      const spy = jest.spyOn(TokenRefreshLeases.prototype, 'held').mockImplementation(async function (this: TokenRefreshLeases, ...args) {
        resolve();
        spy.mockRestore();
        return TokenRefreshLeases.prototype.held.apply(this, args);
      });
    });
    const fromApi = stack.h.services.oauthTokens.current(org.organizationId, connection.id);
    await polled;
    held.release();
    const found = await fromApi;
    expect((await settledSource(stack.h.app, org, id)).syncConfig.lastSyncStatus).toBe('success');
    expect(grant.requests).toBe(1);
    expect(found?.config.accessToken).toBe(grant.accessToken);
    expect((await getSource(stack.h.app, org, id)).syncConfig.lastSyncError).toBeNull();
  });

  it('refreshes the token a workflow step reads through $connections, and fails the step with a message to reconnect when the refresh is refused', async () => {
    const grant = tokens.authorize('hubspot', { firstLifetimeSeconds: 60 });
    const org = await createTestOrg(stack.h.services);
    const name = uniqueName('hubspot_step');
    const connection = await createConnection(stack.h.app, org, { name, type: 'hubspot-oauth', config: { ...grant.config(), portalId: '12345' } });
    const a = workflowApi(stack.h.app, org);
    const search = httpStep('search', {
      url: `${stack.stubs.urls.hubspot}/crm/v3/objects/deals/search`,
      method: 'POST',
      headers: { authorization: `Bearer {{ $connections.${name}.accessToken }}` },
      body: { filterGroups: [], limit: 1 },
    });
    const { id } = await a.createWorkflow([search]);
    const ok = await a.runAndWait(id);
    expect(ok.status).toBe('completed');
    expect(stepOf(ok, 'search').output.status).toBe(200);
    expect(grant.requests).toBe(1);

    grant.revoke();
    // Expire the stored token by hand, as half an hour would.
    const config = await connectionConfig(stack.h.app, org, connection.id);
    const expired = { ...config, expiresAt: new Date(Date.now() - 1000).toISOString() };
    expectStatus(await as(stack.h.app, org.ownerToken).patch(`/connections/${connection.id}`).send({ config: expired }), 200);
    const refused = await a.runAndWait(id);
    expect(refused.status).toBe('failed');
    const step = stepOf(refused, 'search');
    expect(JSON.stringify(step)).toMatch(/reconnect/i);
    expect(JSON.stringify(refused)).not.toContain(grant.clientSecret);
  });
});
