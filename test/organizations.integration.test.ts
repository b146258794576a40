import request from 'supertest';
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES, type Role } from '../src/auth/roles';
import { hashToken } from '../src/auth/token-secret';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, eventually, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

interface Member {
  userId: string;
  email: string;
  role: Role;
}

async function members(org: TestOrg): Promise<Member[]> {
  const res = await as(h.app, org.ownerToken).get('/organization/members');
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The member that createTestOrg made for a role (each role's token belongs to a distinct user). */
async function memberFor(org: TestOrg, role: Role): Promise<Member> {
  const res = await as(h.app, org.tokens[role]).get('/tokens');
  expect(res.status).toBe(200);
  const userId = res.body.data[0].userId;
  const m = (await members(org)).find((x) => x.userId === userId);
  expect(m).toBeDefined();
  return m!;
}

let emailCounter = 0;
const newEmail = () => `new-${Date.now().toString(36)}-${emailCounter++}-${Math.random().toString(36).slice(2, 6)}@example.test`;

describe('active organization', () => {
  test.each(ROLES)('GET /organization as %s shows the role and its permissions', async (role) => {
    const org = await createTestOrg(h.services, 'business');
    const res = await as(h.app, org.tokens[role]).get('/organization');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: org.organizationId, suid: org.organizationSuid, plan: 'business', role });
    expect(typeof res.body.name).toBe('string');
    expect([...res.body.permissions].sort()).toEqual([...ROLE_PERMISSIONS[role]].sort());
    for (const p of res.body.permissions) expect(PERMISSIONS).toContain(p);
  });

  test('GET /organizations lists the caller organizations with the role in each', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const res = await as(h.app, a.tokens.viewer).get('/organizations');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: a.organizationId, suid: a.organizationSuid, role: 'viewer' })]);
    expect(res.body.data.map((o: { id: string }) => o.id)).not.toContain(b.organizationId);
  });

  test('POST /organizations creates an organization owned by the caller and answers a personal token for it, the only way in', async () => {
    const home = await createTestOrg(h.services);
    const me = await memberFor(home, 'analyst');
    const created = await as(h.app, home.tokens.analyst).post('/organizations').send({ name: '  Second org  ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Second org', plan: 'free', role: 'owner' });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const newId = created.body.id as string;
    const newSuid = created.body.suid as string;
    expect(created.body.token).toMatchObject({ organizationId: newId, userId: me.userId, kind: 'personal' });
    const newToken = created.body.token.token as string;

    // The calling token stays bound to its own membership: it cannot act in the new organization.
    expect((await as(h.app, home.tokens.analyst).get('/organization')).body).toMatchObject({ id: home.organizationId, role: 'analyst' });
    for (const ref of [newId, newSuid]) {
      expectError(await as(h.app, home.tokens.analyst).get('/organization').set('X-Organization-Id', ref), 403, 'no_organization_access');
    }
    expect((await as(h.app, home.tokens.analyst).get('/organizations')).body.data.map((o: { id: string }) => o.id)).toEqual([home.organizationId]);

    // The new token acts there as owner, and only there.
    for (const ref of [undefined, newId, newSuid]) {
      const req = as(h.app, newToken).get('/organization');
      const res = await (ref ? req.set('X-Organization-Id', ref) : req);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: newId, suid: newSuid, role: 'owner' });
      expect([...res.body.permissions].sort()).toEqual([...PERMISSIONS].sort());
    }
    expect((await as(h.app, newToken).get('/organizations')).body.data).toEqual([expect.objectContaining({ id: newId, role: 'owner' })]);
    const list = await as(h.app, newToken).get('/organization/members');
    expect(list.body.data).toEqual([expect.objectContaining({ userId: me.userId, role: 'owner' })]);
    expectError(await as(h.app, newToken).get('/organization').set('X-Organization-Id', home.organizationId), 403, 'no_organization_access');

    // Resources stay in their organization.
    const env = await as(h.app, newToken).post('/environments').send({ name: 'in_new_org' });
    expect(env.status).toBe(201);
    expect(env.body.organizationId).toBe(newId);
    expect((await as(h.app, home.ownerToken).get('/environments')).body.total).toBe(0);
    expectError(await as(h.app, home.ownerToken).get(`/environments/${env.body.id}`), 404);
  });

  test('POST /organizations validates its body', async () => {
    const org = await createTestOrg(h.services);
    const count = async () => (await h.services.db.query(`SELECT count(*)::int AS n FROM memberships WHERE user_id = $1`, [org.ownerId]))[0].n;
    const before = await count();
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: '' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: 'x', plan: 'platinum' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: 'x', owner: 'someone' }), 400);
    expect(await count()).toBe(before);
  });

  test("X-Organization-Id naming any organization but the token's own gives 403 no_organization_access", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    for (const ref of [b.organizationId, b.organizationSuid, '00000000-0000-4000-8000-000000000000', 'nosuchsuid00', "x' OR '1'='1"]) {
      for (const url of ['/organization', '/environments', '/organization/members', '/tokens']) {
        const res = await as(h.app, a.ownerToken).get(url).set('X-Organization-Id', ref);
        expectError(res, 403, 'no_organization_access');
      }
    }
    const write = await as(h.app, a.ownerToken).post('/environments').set('X-Organization-Id', b.organizationId).send({ name: 'planted' });
    expectError(write, 403, 'no_organization_access');
    expect((await as(h.app, b.ownerToken).get('/environments')).body.total).toBe(0);
    // Its own organization, by id or suid, is fine.
    for (const ref of [a.organizationId, a.organizationSuid]) {
      expect((await as(h.app, a.ownerToken).get('/organization').set('X-Organization-Id', ref)).status).toBe(200);
    }
  });
});

/** Invites an address as `by` and accepts without a token (a new account); the new member's personal token. */
async function inviteAndJoin(org: TestOrg, by: string, email: string, role: Role, name?: string) {
  const invited = await as(h.app, by)
    .post('/organization/invitations')
    .send({ email, role, ...(name ? { name } : {}) });
  expect(invited.status).toBe(201);
  const accepted = await request(h.app).post('/invitations/accept').send({ code: invited.body.code });
  expect(accepted.status).toBe(201);
  expect(accepted.body.organization.id).toBe(org.organizationId);
  return { userId: accepted.body.userId as string, token: accepted.body.token.token as string, invitation: invited.body };
}

describe('invitations and members', () => {
  test('listing members needs members:admin', async () => {
    const org = await createTestOrg(h.services);
    for (const role of ROLES) {
      const res = await as(h.app, org.tokens[role]).get('/organization/members');
      if (ROLE_PERMISSIONS[role].includes('members:admin')) {
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(5);
        expect(res.body.data.map((m: Member) => m.role).sort()).toEqual([...ROLES].sort());
        for (const m of res.body.data) expect(Object.keys(m).sort()).toEqual(['createdAt', 'email', 'name', 'role', 'userId']);
      } else {
        expectError(res, 403, 'missing_permission');
      }
    }
    expect(ROLES.filter((r) => ROLE_PERMISSIONS[r].includes('members:admin'))).toEqual(['owner', 'admin']);
  });

  test.each(['developer', 'analyst', 'viewer'] as const)('%s cannot invite, change, remove members or issue them tokens', async (role) => {
    const org = await createTestOrg(h.services);
    const viewer = await memberFor(org, 'viewer');
    const before = await members(org);
    const t = org.tokens[role];
    expectError(await as(h.app, t).post('/organization/invitations').send({ email: newEmail(), role: 'viewer' }), 403, 'missing_permission');
    expectError(await as(h.app, t).get('/organization/invitations'), 403, 'missing_permission');
    expectError(await as(h.app, t).patch(`/organization/members/${viewer.userId}`).send({ role: 'admin' }), 403, 'missing_permission');
    expectError(await as(h.app, t).delete(`/organization/members/${viewer.userId}`), 403, 'missing_permission');
    expectError(await as(h.app, t).post(`/organization/members/${viewer.userId}/tokens`).send({ name: 'x' }), 403, 'missing_permission');
    expectError(await as(h.app, t).patch('/organization').send({ name: 'renamed' }), 403, 'missing_permission');
    expect(await members(org)).toEqual(before);
  });

  test('members are added only by invitation: POST /organization/members does not exist', async () => {
    const org = await createTestOrg(h.services);
    expectError(await as(h.app, org.ownerToken).post('/organization/members').send({ email: newEmail(), role: 'viewer' }), 404, 'route_not_found');
  });

  test.each(['owner', 'admin'] as const)(
    '%s invites; the invitation grants nothing until accepted; then role changes and removal apply at once',
    async (role) => {
      const org = await createTestOrg(h.services);
      const email = newEmail();
      const invited = await as(h.app, org.tokens[role])
        .post('/organization/invitations')
        .send({ email: email.toUpperCase(), name: 'New Person', role: 'viewer' });
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({ email, name: 'New Person', role: 'viewer', organizationId: org.organizationId });
      expect(invited.body.code).toMatch(/^fbi_/);
      expect(new Date(invited.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
      // Nothing is granted yet: no member, no user to mint a token for.
      expect((await members(org)).map((m) => m.email)).not.toContain(email);
      const open = await as(h.app, org.tokens[role]).get('/organization/invitations');
      expect(open.body.data).toEqual([expect.objectContaining({ id: invited.body.id, email, role: 'viewer' })]);
      expect(JSON.stringify(open.body)).not.toContain(invited.body.code);

      const accepted = await request(h.app).post('/invitations/accept').send({ code: invited.body.code });
      expect(accepted.status).toBe(201);
      expect(accepted.body).toMatchObject({ role: 'viewer', organization: { id: org.organizationId } });
      expect(accepted.body.token).toMatchObject({ kind: 'personal', organizationId: org.organizationId, userId: accepted.body.userId });
      const userId = accepted.body.userId as string;
      const memberToken = accepted.body.token.token as string;
      expect((await members(org)).find((m) => m.userId === userId)).toMatchObject({ role: 'viewer', email, name: 'New Person' });
      expect((await as(h.app, org.tokens[role]).get('/organization/invitations')).body.total).toBe(0);
      expect((await as(h.app, memberToken).get('/organization')).body).toMatchObject({ id: org.organizationId, role: 'viewer' });
      expectError(await as(h.app, memberToken).post('/environments').send({ name: 'nope' }), 403, 'missing_permission');
      // A code is used once.
      expectError(await request(h.app).post('/invitations/accept').send({ code: invited.body.code }), 404, 'not_found');

      const changed = await as(h.app, org.tokens[role]).patch(`/organization/members/${userId}`).send({ role: 'developer' });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ userId, role: 'developer' });
      expect((await as(h.app, memberToken).get('/organization')).body.role).toBe('developer');
      expect((await as(h.app, memberToken).post('/environments').send({ name: 'now_allowed' })).status).toBe(201);

      const removed = await as(h.app, org.tokens[role]).delete(`/organization/members/${userId}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toMatchObject({ userId, role: 'developer' });
      expect((await members(org)).map((m) => m.userId)).not.toContain(userId);
      // The token belonged to the membership and went with it.
      expectError(await as(h.app, memberToken).get('/organization'), 401, 'unauthorized');
    },
  );

  test('inviting an existing member gives 409 (e-mail compared case-insensitively)', async () => {
    const org = await createTestOrg(h.services);
    const viewer = await memberFor(org, 'viewer');
    expectError(await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: viewer.email, role: 'admin' }), 409, 'already_member');
    expectError(
      await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: viewer.email.toUpperCase(), role: 'admin' }),
      409,
      'already_member',
    );
    expect((await as(h.app, org.ownerToken).get('/organization/invitations')).body.total).toBe(0);
  });

  test('someone with an account accepts with their own personal token, and gets a token for the new membership only', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const bViewer = await memberFor(b, 'viewer');
    const invited = await as(h.app, a.ownerToken).post('/organization/invitations').send({ email: bViewer.email, role: 'developer' });
    expect(invited.status).toBe(201);
    // Without a token the address's account is not taken over.
    expectError(await request(h.app).post('/invitations/accept').send({ code: invited.body.code }), 409, 'sign_in_required');
    // Another person's token does not accept it.
    expectError(await as(h.app, b.tokens.analyst).post('/invitations/accept').send({ code: invited.body.code }), 403, 'invitation_for_another_address');
    expect((await members(a)).map((m) => m.userId)).not.toContain(bViewer.userId);

    const accepted = await as(h.app, b.tokens.viewer).post('/invitations/accept').send({ code: invited.body.code });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ userId: bViewer.userId, role: 'developer', organization: { id: a.organizationId } });
    const inA = accepted.body.token.token as string;
    expect((await as(h.app, inA).get('/organization')).body).toMatchObject({ id: a.organizationId, role: 'developer' });
    expectError(await as(h.app, inA).get('/organization').set('X-Organization-Id', b.organizationId), 403, 'no_organization_access');
    // The accepting token keeps acting only in its own organization.
    expect((await as(h.app, b.tokens.viewer).get('/organization')).body).toMatchObject({ id: b.organizationId, role: 'viewer' });
    expectError(await as(h.app, b.tokens.viewer).get('/organization').set('X-Organization-Id', a.organizationId), 403, 'no_organization_access');
  });

  test('invitations are replaced by a new one, revoked, expire, and are found only by their code', async () => {
    const org = await createTestOrg(h.services);
    const email = newEmail();
    const first = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email, role: 'viewer' });
    const second = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email, role: 'analyst' });
    expect(second.status).toBe(201);
    const open = await as(h.app, org.ownerToken).get('/organization/invitations');
    expect(open.body.data.map((i: { id: string }) => i.id)).toEqual([second.body.id]);
    expectError(await request(h.app).post('/invitations/accept').send({ code: first.body.code }), 404);

    const revoked = await as(h.app, org.ownerToken).delete(`/organization/invitations/${second.body.id}`);
    expect(revoked.status).toBe(200);
    expectError(await as(h.app, org.ownerToken).delete(`/organization/invitations/${second.body.id}`), 404);
    expectError(await request(h.app).post('/invitations/accept').send({ code: second.body.code }), 404);

    const third = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email, role: 'viewer' });
    await h.services.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [third.body.id]);
    expectError(await request(h.app).post('/invitations/accept').send({ code: third.body.code }), 404);
    expect((await as(h.app, org.ownerToken).get('/organization/invitations')).body.total).toBe(0);
    expectError(await request(h.app).post('/invitations/accept').send({ code: 'fbi_made-up' }), 404);
    expect((await members(org)).map((m) => m.email)).not.toContain(email);

    // Another organization's admin cannot see or revoke them.
    const other = await createTestOrg(h.services);
    const fourth = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email, role: 'viewer' });
    expect((await as(h.app, other.ownerToken).get('/organization/invitations')).body.total).toBe(0);
    expectError(await as(h.app, other.ownerToken).delete(`/organization/invitations/${fourth.body.id}`), 404);
    expect((await as(h.app, org.ownerToken).get('/organization/invitations')).body.total).toBe(1);
  });

  test('the invitation code is stored only as a hash', async () => {
    const org = await createTestOrg(h.services);
    const invited = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: newEmail(), role: 'viewer' });
    const rows = await h.services.db.query(`SELECT * FROM invitations WHERE id = $1`, [invited.body.id]);
    expect(JSON.stringify(rows)).not.toContain(invited.body.code);
    expect(rows[0].code_hash).toBe(hashToken(invited.body.code));
  });

  test('invitation validation: bad e-mail, unknown role, unknown fields; unknown members', async () => {
    const org = await createTestOrg(h.services);
    expectError(await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: 'not-an-email', role: 'viewer' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: newEmail(), role: 'superuser' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: newEmail(), role: 'viewer', admin: true }), 400);
    expectError(await request(h.app).post('/invitations/accept').send({}), 400);
    expectError(await request(h.app).post('/invitations/accept').send({ code: 'x', role: 'owner' }), 400);
    expect((await as(h.app, org.ownerToken).get('/organization/invitations')).body.total).toBe(0);
    const stranger = '00000000-0000-4000-8000-000000000001';
    expectError(await as(h.app, org.ownerToken).patch(`/organization/members/${stranger}`).send({ role: 'viewer' }), 404);
    expectError(await as(h.app, org.ownerToken).delete(`/organization/members/${stranger}`), 404);
    expectError(await as(h.app, org.ownerToken).post(`/organization/members/${stranger}/tokens`).send({ name: 't' }), 404);
  });

  test('a member of another organization cannot be changed, removed or given a token here', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const bViewer = await memberFor(b, 'viewer');
    expectError(await as(h.app, a.ownerToken).patch(`/organization/members/${bViewer.userId}`).send({ role: 'admin' }), 404);
    expectError(await as(h.app, a.ownerToken).delete(`/organization/members/${bViewer.userId}`), 404);
    expectError(await as(h.app, a.ownerToken).post(`/organization/members/${bViewer.userId}/tokens`).send({ name: 't' }), 404);
    expectError(await as(h.app, a.ownerToken).get(`/organization/members/${bViewer.userId}/tokens`), 404);
    expect((await memberFor(b, 'viewer')).role).toBe('viewer');
  });
});

describe('the owner role', () => {
  test('an admin cannot invite an owner, promote to owner, or change or remove an owner', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const dev = await memberFor(org, 'developer');
    const before = await members(org);
    expectError(await as(h.app, org.tokens.admin).post('/organization/invitations').send({ email: newEmail(), role: 'owner' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${dev.userId}`).send({ role: 'owner' }), 403, 'owner_required');
    const self = await memberFor(org, 'admin');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${self.userId}`).send({ role: 'owner' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${owner.userId}`).send({ role: 'viewer' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).delete(`/organization/members/${owner.userId}`), 403, 'owner_required');
    expect(await members(org)).toEqual(before);
    expect((await as(h.app, org.tokens.admin).get('/organization/invitations')).body.total).toBe(0);
  });

  test('tokens are minted only for members below the minter: an admin not for owners or admins, nobody for a peer or themselves', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const admin = await memberFor(org, 'admin');
    const dev = await memberFor(org, 'developer');
    const secondAdmin = await inviteAndJoin(org, org.ownerToken, newEmail(), 'admin');
    const secondOwner = await inviteAndJoin(org, org.ownerToken, newEmail(), 'owner');
    const refused: Array<[string, string]> = [
      [org.tokens.admin, owner.userId],
      [org.tokens.admin, secondAdmin.userId],
      [org.ownerToken, secondOwner.userId],
    ];
    for (const [token, userId] of refused) {
      expectError(await as(h.app, token).post(`/organization/members/${userId}/tokens`).send({ name: 'stolen' }), 403, 'insufficient_role');
      expectError(await as(h.app, token).get(`/organization/members/${userId}/tokens`), 403, 'insufficient_role');
    }
    expectError(await as(h.app, org.tokens.admin).post(`/organization/members/${admin.userId}/tokens`).send({ name: 'me' }), 400, 'own_tokens');
    const rows = await h.services.db.query(`SELECT count(*)::int AS n FROM access_tokens WHERE name IN ('stolen', 'me')`);
    expect(rows[0].n).toBe(0);
    // An owner may for an admin; an admin for a developer.
    expect((await as(h.app, org.ownerToken).post(`/organization/members/${admin.userId}/tokens`).send({ name: 'for-admin' })).status).toBe(201);
    expect((await as(h.app, org.tokens.admin).post(`/organization/members/${dev.userId}/tokens`).send({ name: 'dev' })).status).toBe(201);
  });

  test('an owner grants the owner role; then either owner may step down', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const admin = await memberFor(org, 'admin');
    const promoted = await as(h.app, org.ownerToken).patch(`/organization/members/${admin.userId}`).send({ role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('owner');
    expect((await as(h.app, org.tokens.admin).get('/organization')).body.role).toBe('owner');
    const added = await inviteAndJoin(org, org.ownerToken, newEmail(), 'owner');
    expect((await as(h.app, added.token).get('/organization')).body.role).toBe('owner');
    // The original owner steps down: two other owners remain.
    const down = await as(h.app, org.ownerToken).patch(`/organization/members/${owner.userId}`).send({ role: 'viewer' });
    expect(down.status).toBe(200);
    expect((await as(h.app, org.ownerToken).get('/organization')).body.role).toBe('viewer');
  });

  test('the last owner cannot be demoted or removed (400 last_owner)', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const demote = await as(h.app, org.ownerToken).patch(`/organization/members/${owner.userId}`).send({ role: 'admin' });
    expectError(demote, 400, 'last_owner');
    const remove = await as(h.app, org.ownerToken).delete(`/organization/members/${owner.userId}`);
    expectError(remove, 400, 'last_owner');
    expect((await memberFor(org, 'owner')).role).toBe('owner');
    // Owner to owner is a no-op, not a demotion.
    expect((await as(h.app, org.ownerToken).patch(`/organization/members/${owner.userId}`).send({ role: 'owner' })).status).toBe(200);

    // With a second owner, the first can leave; then the second is the last one.
    const admin = await memberFor(org, 'admin');
    expect((await as(h.app, org.ownerToken).patch(`/organization/members/${admin.userId}`).send({ role: 'owner' })).status).toBe(200);
    expect((await as(h.app, org.ownerToken).delete(`/organization/members/${owner.userId}`)).status).toBe(200);
    expectError(await as(h.app, org.ownerToken).get('/organization'), 401, 'unauthorized');
    expectError(await as(h.app, org.tokens.admin).delete(`/organization/members/${admin.userId}`), 400, 'last_owner');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${admin.userId}`).send({ role: 'developer' }), 400, 'last_owner');
  });

  test('two owners demoting each other at once leave one owner', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const admin = await memberFor(org, 'admin');
    expect((await as(h.app, org.ownerToken).patch(`/organization/members/${admin.userId}`).send({ role: 'owner' })).status).toBe(200);
    const [r1, r2] = await Promise.all([
      as(h.app, org.ownerToken).patch(`/organization/members/${admin.userId}`).send({ role: 'viewer' }),
      as(h.app, org.tokens.admin).patch(`/organization/members/${owner.userId}`).send({ role: 'viewer' }),
    ]);
    // One wins. The other is refused as the last owner (400), or, if it authenticated after the
    // winner's change, for lacking the owner role it no longer has (403).
    const [first, second] = [r1.status, r2.status].sort();
    expect(first).toBe(200);
    expect([400, 403]).toContain(second);
    const owners = (
      await h.services.db.query(`SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [org.organizationId])
    )[0].n;
    expect(owners).toBe(1);
  });
});

describe('removal', () => {
  test("removing a member ends that member's tokens there; coming back takes a new invitation and gives a new token", async () => {
    const org = await createTestOrg(h.services);
    const dev = await memberFor(org, 'developer');
    expect((await as(h.app, org.tokens.developer).get('/environments')).status).toBe(200);
    const extra = await as(h.app, org.tokens.developer).post('/tokens').send({ name: 'extra' });
    const res = await as(h.app, org.tokens.admin).delete(`/organization/members/${dev.userId}`);
    expect(res.status).toBe(200);
    for (const token of [org.tokens.developer, extra.body.token]) {
      for (const url of ['/organization', '/environments', '/tokens']) expectError(await as(h.app, token).get(url), 401, 'unauthorized');
      expectError(await as(h.app, token).post('/environments').send({ name: 'after_removal' }), 401, 'unauthorized');
    }
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(0);
    // Re-inviting: the old tokens stay dead. The account belongs to no organization any more (so no token of it
    // exists), and the invitation is accepted without one.
    const invited = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: dev.email, role: 'viewer' });
    const back = await request(h.app).post('/invitations/accept').send({ code: invited.body.code });
    expect(back.status).toBe(201);
    expect(back.body.userId).toBe(dev.userId);
    expect((await as(h.app, back.body.token.token).get('/organization')).body).toMatchObject({ id: org.organizationId, role: 'viewer' });
    expectError(await as(h.app, org.tokens.developer).get('/organization'), 401, 'unauthorized');
  });
});

describe('tokens', () => {
  test('POST /tokens shows the token once and it works; GET /tokens never shows the secret or its hash', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.tokens.analyst).post('/tokens').send({ name: 'ci', expiresInDays: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'ci', organizationId: org.organizationId });
    expect(res.body.token).toMatch(/^fbt_/);
    expect(res.body.token.startsWith(res.body.tokenPrefix)).toBe(true);
    expect(res.body.tokenHash).toBeUndefined();
    const expiresAt = new Date(res.body.expiresAt).getTime();
    expect(Math.abs(expiresAt - (Date.now() + 30 * 86_400_000))).toBeLessThan(120_000);
    const token = res.body.token as string;

    const me = await as(h.app, token).get('/organization');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: org.organizationId, role: 'analyst' });

    const list = await as(h.app, org.tokens.analyst).get('/tokens');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(res.body.id);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(token);
    expect(text).not.toContain(org.tokens.analyst);
    expect(text).not.toContain(hashToken(token));
    expect(text).not.toContain(hashToken(org.tokens.analyst));
    for (const t of list.body.data) {
      expect(t.token).toBeUndefined();
      expect(t.tokenHash).toBeUndefined();
      expect(t.token_hash).toBeUndefined();
      expect(t.userId).toBe(res.body.userId);
    }
    // Only the caller's own tokens.
    const ownerList = await as(h.app, org.ownerToken).get('/tokens');
    expect(ownerList.body.data.map((t: { id: string }) => t.id)).not.toContain(res.body.id);

    // The same token is never shown again: a second POST gives a different one.
    const second = await as(h.app, org.tokens.analyst).post('/tokens').send({ name: 'ci' });
    expect(second.body.token).not.toBe(token);
    expect(second.body.expiresAt).toBeNull();
  });

  test('DELETE /tokens/{id} revokes the token (then 401); other tokens keep working', async () => {
    const org = await createTestOrg(h.services);
    const issued = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'short-lived' });
    const token = issued.body.token as string;
    expect((await as(h.app, token).get('/organization')).status).toBe(200);
    const del = await as(h.app, org.tokens.viewer).delete(`/tokens/${issued.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: issued.body.id, name: 'short-lived' });
    expect(del.body.revokedAt).toEqual(expect.any(String));
    expect(JSON.stringify(del.body)).not.toContain(token);
    expect(del.body.tokenHash).toBeUndefined();
    expectError(await as(h.app, token).get('/organization'), 401, 'unauthorized');
    expect((await as(h.app, org.tokens.viewer).get('/organization')).status).toBe(200);
    const list = await as(h.app, org.tokens.viewer).get('/tokens');
    expect(list.body.data.map((t: { id: string }) => t.id)).not.toContain(issued.body.id);
    // Revoking twice: 404.
    expectError(await as(h.app, org.tokens.viewer).delete(`/tokens/${issued.body.id}`), 404, 'not_found');
  });

  test('a token can revoke itself', async () => {
    const org = await createTestOrg(h.services);
    const issued = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'self' });
    expect((await as(h.app, issued.body.token).delete(`/tokens/${issued.body.id}`)).status).toBe(200);
    expectError(await as(h.app, issued.body.token).get('/tokens'), 401, 'unauthorized');
  });

  test("revoking someone else's token id gives 404 and leaves it working", async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const victim = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'victim' });
    const foreign = await as(h.app, other.ownerToken).post('/tokens').send({ name: 'foreign' });
    // Same organization, even an owner or admin.
    for (const token of [org.ownerToken, org.tokens.admin, org.tokens.developer]) {
      expectError(await as(h.app, token).delete(`/tokens/${victim.body.id}`), 404, 'not_found');
    }
    // Another organization.
    expectError(await as(h.app, org.ownerToken).delete(`/tokens/${foreign.body.id}`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).delete('/tokens/00000000-0000-4000-8000-000000000002'), 404, 'not_found');
    expect((await as(h.app, victim.body.token).get('/organization')).status).toBe(200);
    expect((await as(h.app, foreign.body.token).get('/organization')).status).toBe(200);
    const revoked = await h.services.db.query(`SELECT revoked_at FROM access_tokens WHERE id = ANY($1::uuid[])`, [[victim.body.id, foreign.body.id]]);
    expect(revoked.map((r: { revoked_at: Date | null }) => r.revoked_at)).toEqual([null, null]);
  });

  test('a delegated token minted for a member works as that member, and its minter can list and revoke it', async () => {
    const org = await createTestOrg(h.services);
    const analyst = await memberFor(org, 'analyst');
    const res = await as(h.app, org.tokens.admin).post(`/organization/members/${analyst.userId}/tokens`).send({ name: 'issued', expiresInDays: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userId: analyst.userId, organizationId: org.organizationId, name: 'issued', kind: 'delegated' });
    expect(res.body.expiresAt).toEqual(expect.any(String));
    const me = await as(h.app, res.body.token).get('/organization');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: org.organizationId, role: 'analyst' });
    // It is the analyst's token: it appears in the analyst's list, not the admin's.
    expect((await as(h.app, org.tokens.analyst).get('/tokens')).body.data.map((t: { id: string }) => t.id)).toContain(res.body.id);
    expect((await as(h.app, org.tokens.admin).get('/tokens')).body.data.map((t: { id: string }) => t.id)).not.toContain(res.body.id);
    const listed = await as(h.app, org.tokens.admin).get(`/organization/members/${analyst.userId}/tokens`);
    expect(listed.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: res.body.id, kind: 'delegated' })]));
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token);
    expect((await as(h.app, org.tokens.admin).delete(`/organization/members/${analyst.userId}/tokens/${res.body.id}`)).status).toBe(200);
    expectError(await as(h.app, res.body.token).get('/organization'), 401, 'unauthorized');
    // The analyst can revoke one too.
    const again = await as(h.app, org.tokens.admin).post(`/organization/members/${analyst.userId}/tokens`).send({ name: 'again' });
    expect((await as(h.app, org.tokens.analyst).delete(`/tokens/${again.body.id}`)).status).toBe(200);
    expectError(await as(h.app, again.body.token).get('/organization'), 401, 'unauthorized');
  });

  test('minting from a delegated token never widens it: same kind, capped expiry, revoked with it, no acting as the person', async () => {
    const org = await createTestOrg(h.services);
    const dev = await memberFor(org, 'developer');
    const delegated = await as(h.app, org.tokens.admin).post(`/organization/members/${dev.userId}/tokens`).send({ name: 'delegated', expiresInDays: 2 });
    const child = await as(h.app, delegated.body.token).post('/tokens').send({ name: 'child', expiresInDays: 365 });
    expect(child.status).toBe(201);
    expect(child.body.kind).toBe('delegated');
    expect(child.body.expiresAt).toBe(delegated.body.expiresAt);
    expect((await as(h.app, child.body.token).get('/organization')).body).toMatchObject({ id: org.organizationId, role: 'developer' });
    // It acts as the member here, never as the person: no new organizations, no invitations accepted.
    for (const token of [delegated.body.token, child.body.token]) {
      expectError(await as(h.app, token).post('/organizations').send({ name: 'in their name' }), 403, 'personal_token_required');
    }
    const invited = await as(h.app, (await createTestOrg(h.services)).ownerToken)
      .post('/organization/invitations')
      .send({ email: dev.email, role: 'owner' });
    expectError(await as(h.app, child.body.token).post('/invitations/accept').send({ code: invited.body.code }), 403, 'personal_token_required');
    // Revoking the delegated token revokes what was minted with it.
    expect((await as(h.app, org.tokens.admin).delete(`/organization/members/${dev.userId}/tokens/${delegated.body.id}`)).status).toBe(200);
    expectError(await as(h.app, child.body.token).get('/organization'), 401, 'unauthorized');
  });

  test('revoking a personal token revokes the tokens minted with it, at any depth', async () => {
    const org = await createTestOrg(h.services);
    const parent = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'parent' });
    const child = await as(h.app, parent.body.token).post('/tokens').send({ name: 'child' });
    const grandchild = await as(h.app, child.body.token).post('/tokens').send({ name: 'grandchild' });
    expect(grandchild.body.kind).toBe('personal');
    expect((await as(h.app, org.tokens.viewer).delete(`/tokens/${parent.body.id}`)).status).toBe(200);
    for (const t of [parent, child, grandchild]) expectError(await as(h.app, t.body.token).get('/organization'), 401, 'unauthorized');
    expect((await as(h.app, org.tokens.viewer).get('/organization')).status).toBe(200);
  });

  test('a delegated token works only while its minter is a member who outranks its holder', async () => {
    const org = await createTestOrg(h.services);
    const admin = await memberFor(org, 'admin');
    const dev = await memberFor(org, 'developer');
    const analyst = await memberFor(org, 'analyst');
    const forDev = await as(h.app, org.tokens.admin).post(`/organization/members/${dev.userId}/tokens`).send({ name: 'd' });
    const forAnalyst = await as(h.app, org.tokens.admin).post(`/organization/members/${analyst.userId}/tokens`).send({ name: 'a' });
    expect((await as(h.app, forDev.body.token).get('/organization')).status).toBe(200);
    // The developer is promoted to the minter's rank: the admin could not mint that token now.
    expect((await as(h.app, org.ownerToken).patch(`/organization/members/${dev.userId}`).send({ role: 'admin' })).status).toBe(200);
    expectError(await as(h.app, forDev.body.token).get('/organization'), 401, 'unauthorized');
    expect((await as(h.app, org.tokens.developer).get('/organization')).body.role).toBe('admin');
    expect((await as(h.app, forAnalyst.body.token).get('/organization')).status).toBe(200);
    // The minter leaves: what they vouched for stops.
    expect((await as(h.app, org.ownerToken).delete(`/organization/members/${admin.userId}`)).status).toBe(200);
    expectError(await as(h.app, forAnalyst.body.token).get('/organization'), 401, 'unauthorized');
    expect((await as(h.app, org.tokens.analyst).get('/organization')).status).toBe(200);
  });

  test('the limit of 100 live tokens holds when they are minted all at once', async () => {
    const org = await createTestOrg(h.services);
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        as(h.app, org.tokens.viewer)
          .post('/tokens')
          .send({ name: `parallel-${i}` }),
      ),
    );
    // The viewer's own token counts: 99 more fit.
    expect(answers.filter((r) => r.status === 201).length).toBe(99);
    for (const refused of answers.filter((r) => r.status !== 201)) expectError(refused, 400, 'too_many_tokens');
    expect((await as(h.app, org.tokens.viewer).get('/tokens?limit=1')).body.total).toBe(100);
  });

  test('a member holds at most 100 live tokens; revoking one makes room; lists are paged', async () => {
    const org = await createTestOrg(h.services);
    const minted = [];
    for (let i = 1; i < 100; i++)
      minted.push(
        await as(h.app, org.tokens.analyst)
          .post('/tokens')
          .send({ name: `t${i}` }),
      );
    expect(minted.every((r) => r.status === 201)).toBe(true);
    expectError(await as(h.app, org.tokens.analyst).post('/tokens').send({ name: 'one too many' }), 400, 'too_many_tokens');
    const page = await as(h.app, org.tokens.analyst).get('/tokens?limit=10&offset=5');
    expect(page.body.total).toBe(100);
    expect(page.body.data).toHaveLength(10);
    expect((await as(h.app, org.tokens.analyst).delete(`/tokens/${minted[0].body.id}`)).status).toBe(200);
    expect((await as(h.app, org.tokens.analyst).post('/tokens').send({ name: 'room again' })).status).toBe(201);
    const members = await as(h.app, org.ownerToken).get('/organization/members?limit=2');
    expect(members.body).toMatchObject({ total: 5, data: [expect.anything(), expect.anything()] });
  });

  test('an expired token gives 401', async () => {
    const org = await createTestOrg(h.services);
    const issued = await as(h.app, org.tokens.developer).post('/tokens').send({ name: 'expiring', expiresInDays: 1 });
    expect((await as(h.app, issued.body.token).get('/organization')).status).toBe(200);
    await h.services.db.query(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [issued.body.id]);
    // The cache hears of the moved expiry by a notification, a moment after the commit.
    const res = await eventually(
      () => as(h.app, issued.body.token).get('/organization'),
      (r) => r.status !== 200,
      10_000,
    );
    expectError(res, 401, 'unauthorized');
    expect(res.body.error.message).not.toContain(issued.body.token);
    // Other tokens of the user are unaffected.
    expect((await as(h.app, org.tokens.developer).get('/organization')).status).toBe(200);
  });

  test('token body validation', async () => {
    const org = await createTestOrg(h.services);
    const before = (await as(h.app, org.ownerToken).get('/tokens')).body.total;
    expectError(await as(h.app, org.ownerToken).post('/tokens').send({}), 400);
    expectError(await as(h.app, org.ownerToken).post('/tokens').send({ name: 'x', expiresInDays: 0 }), 400);
    expectError(await as(h.app, org.ownerToken).post('/tokens').send({ name: 'x', expiresInDays: 1.5 }), 400);
    expectError(await as(h.app, org.ownerToken).post('/tokens').send({ name: 'x', userId: org.ownerId }), 400);
    expect((await as(h.app, org.ownerToken).get('/tokens')).body.total).toBe(before);
  });
});

describe('authentication', () => {
  test('missing Authorization gives 401 unauthorized', async () => {
    for (const url of ['/organization', '/organizations', '/tokens', '/organization/members', '/environments']) {
      const res = await request(h.app).get(url);
      expectError(res, 401, 'unauthorized');
      expect(res.body.error.requestId).toEqual(expect.any(String));
    }
    expectError(await request(h.app).post('/organizations').send({ name: 'x' }), 401, 'unauthorized');
  });

  test('malformed or unknown credentials give 401', async () => {
    const org = await createTestOrg(h.services);
    for (const header of [
      'Basic x',
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      'Bearer',
      'Bearer ',
      `Bearer ${org.ownerToken} extra`,
      `Token ${org.ownerToken}`,
      org.ownerToken,
      'Bearer fbt_notarealtoken',
      `Bearer ${org.ownerToken}x`,
    ]) {
      const res = await request(h.app).get('/organization').set('Authorization', header);
      expectError(res, 401, 'unauthorized');
    }
    // The genuine header works, case-insensitively on the scheme.
    expect((await request(h.app).get('/organization').set('Authorization', `bearer ${org.ownerToken}`)).status).toBe(200);
  });

  test('the token hash is what is stored, never the token', async () => {
    const org = await createTestOrg(h.services);
    const rows = await h.services.db.query(`SELECT * FROM access_tokens WHERE organization_id = $1`, [org.organizationId]);
    expect(rows.length).toBe(5);
    const text = JSON.stringify(rows);
    for (const role of ROLES) {
      expect(text).not.toContain(org.tokens[role]);
      expect(text).toContain(hashToken(org.tokens[role]));
    }
  });
});
