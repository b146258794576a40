import request from 'supertest';
import { as, createConnection, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

/**
 * The cross-organization secret theft found against the earlier token model,
 * replayed step by step, with its variations: whatever an attacker with an
 * organization of their own does, no token they obtain acts in the victim's
 * organization, and the victim's connection config stays out of reach.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function victimWithSecret(): Promise<{ victim: TestOrg; email: string; userId: string; connectionId: string }> {
  const victim = await createTestOrg(h.services);
  const conn = await createConnection(h.app, victim, { name: 'payments', type: 'api-key', config: { apiKey: 'sk_live_victim_secret_value' } });
  const [{ email }] = await h.services.db.query(`SELECT email FROM users WHERE id = $1`, [victim.ownerId]);
  return { victim, email, userId: victim.ownerId, connectionId: conn.id };
}

/** Every way the attacker's tokens could try the victim's organization; none may read anything. */
async function expectNoWayIn(tokens: string[], target: { victim: TestOrg; connectionId: string }) {
  for (const token of tokens) {
    for (const ref of [target.victim.organizationId, target.victim.organizationSuid]) {
      expectError(await as(h.app, token).get(`/connections/${target.connectionId}/config`).set('X-Organization-Id', ref), 403, 'no_organization_access');
      expectError(await as(h.app, token).get('/connections').set('X-Organization-Id', ref), 403, 'no_organization_access');
    }
    const own = await as(h.app, token).get(`/connections/${target.connectionId}/config`);
    expect(own.status).not.toBe(200);
    expect(JSON.stringify(own.body)).not.toContain('sk_live');
    const orgs = await as(h.app, token).get('/organizations');
    if (orgs.status === 200) expect(JSON.stringify(orgs.body)).not.toContain(target.victim.organizationId);
  }
}

test('the five-step chain: a new organization, the victim "added", a token "for" them, org listing, an unrestricted token', async () => {
  const target = await victimWithSecret();
  const attacker = await createTestOrg(h.services);

  // 1. The attacker creates an organization of their own and gets a token bound to it.
  const created = await as(h.app, attacker.ownerToken).post('/organizations').send({ name: 'x' });
  expect(created.status).toBe(201);
  const attackerOrgToken = created.body.token.token as string;

  // 2. Adding the victim's existing user directly is gone; an invitation grants nothing by itself.
  expectError(await as(h.app, attackerOrgToken).post('/organization/members').send({ email: target.email, role: 'viewer' }), 404, 'route_not_found');
  const invited = await as(h.app, attackerOrgToken).post('/organization/invitations').send({ email: target.email, role: 'viewer' });
  expect(invited.status).toBe(201);
  const members = await as(h.app, attackerOrgToken).get('/organization/members');
  expect(members.body.data.map((m: { userId: string }) => m.userId)).not.toContain(target.userId);

  // The attacker holds the code, but it does not take over the victim's account.
  expectError(await request(h.app).post('/invitations/accept').send({ code: invited.body.code }), 409, 'sign_in_required');
  expectError(await as(h.app, attackerOrgToken).post('/invitations/accept').send({ code: invited.body.code }), 403, 'invitation_for_another_address');

  // 3. No token can be minted for someone who is not a member.
  expectError(await as(h.app, attackerOrgToken).post(`/organization/members/${target.userId}/tokens`).send({ name: 'victim' }), 404, 'not_found');

  // 4 and 5. Nothing the attacker holds lists or reaches the victim's organization.
  await expectNoWayIn([attacker.ownerToken, attackerOrgToken], target);
  const minted = await as(h.app, attackerOrgToken).post('/tokens').send({ name: 'second' });
  await expectNoWayIn([minted.body.token], target);
});

test('even when the victim accepts, tokens the attacker mints "for" them act only in the attacker organization', async () => {
  const target = await victimWithSecret();
  const attacker = await createTestOrg(h.services);
  const invited = await as(h.app, attacker.ownerToken).post('/organization/invitations').send({ email: target.email, role: 'viewer' });
  // The victim joins with their own token (a personal one of their organization).
  const joined = await as(h.app, target.victim.ownerToken).post('/invitations/accept').send({ code: invited.body.code });
  expect(joined.status).toBe(201);
  expect(joined.body.userId).toBe(target.userId);

  const forVictim = await as(h.app, attacker.ownerToken).post(`/organization/members/${target.userId}/tokens`).send({ name: 'victim' });
  expect(forVictim.status).toBe(201);
  expect(forVictim.body.kind).toBe('delegated');
  const delegated = forVictim.body.token as string;

  // Listing organizations shows only the one the token acts in.
  const orgs = await as(h.app, delegated).get('/organizations');
  expect(orgs.body.data.map((o: { id: string }) => o.id)).toEqual([attacker.organizationId]);
  // Minting from it gives another delegated token for the same membership.
  const second = await as(h.app, delegated).post('/tokens').send({ name: 'unrestricted?' });
  expect(second.status).toBe(201);
  expect(second.body).toMatchObject({ kind: 'delegated', organizationId: attacker.organizationId });
  // It cannot act as the person elsewhere: no organization in their name, no invitations accepted.
  expectError(await as(h.app, delegated).post('/organizations').send({ name: 'as victim' }), 403, 'personal_token_required');
  await expectNoWayIn([delegated, second.body.token], target);

  // The victim's own tokens: the one from accepting acts only in the attacker organization.
  await expectNoWayIn([joined.body.token.token], target);
  // The victim's home token still works at home, and reads the config.
  const config = await as(h.app, target.victim.ownerToken).get(`/connections/${target.connectionId}/config`);
  expect(config.status).toBe(200);
  expect(config.body.apiKey).toBe('sk_live_victim_secret_value');
});

test('member-issued tokens: an admin mints for nobody at or above their rank, and never reaches another organization', async () => {
  const target = await victimWithSecret();
  const org = await createTestOrg(h.services);
  const adminUser = (await as(h.app, org.tokens.admin).get('/tokens')).body.data[0].userId as string;
  // The owner of org is impersonated by nobody: not by its admin.
  expectError(await as(h.app, org.tokens.admin).post(`/organization/members/${org.ownerId}/tokens`).send({ name: 'impersonate' }), 403, 'insufficient_role');
  const peer = await as(h.app, org.ownerToken)
    .post('/organization/invitations')
    .send({ email: `peer-${Date.now()}@example.test`, role: 'admin' });
  const peerJoined = await request(h.app).post('/invitations/accept').send({ code: peer.body.code });
  expectError(
    await as(h.app, org.tokens.admin).post(`/organization/members/${peerJoined.body.userId}/tokens`).send({ name: 'peer' }),
    403,
    'insufficient_role',
  );
  expectError(await as(h.app, org.tokens.admin).post(`/organization/members/${adminUser}/tokens`).send({ name: 'self' }), 400, 'own_tokens');
  await expectNoWayIn([org.tokens.admin, org.tokens.developer, org.ownerToken], target);
});
