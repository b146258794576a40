import request from 'supertest';
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES, Role } from '../src/auth/roles';
import { hashToken } from '../src/auth/token-secret';
import { as, createTestOrg, Harness, startHarness, TestOrg } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function expectError(res: request.Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
  if (code) expect(res.body.error.code).toBe(code);
}

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

  test('POST /organizations creates an organization owned by the caller, selectable by id and suid', async () => {
    const home = await createTestOrg(h.services);
    const me = await memberFor(home, 'analyst');
    const created = await as(h.app, home.tokens.analyst).post('/organizations').send({ name: '  Second org  ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Second org', plan: 'free' });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const newId = created.body.id as string;
    const newSuid = created.body.suid as string;

    // Without the header the token still acts in its own organization.
    const homeView = await as(h.app, home.tokens.analyst).get('/organization');
    expect(homeView.body).toMatchObject({ id: home.organizationId, role: 'analyst' });

    for (const ref of [newId, newSuid]) {
      const res = await as(h.app, home.tokens.analyst).get('/organization').set('X-Organization-Id', ref);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: newId, suid: newSuid, role: 'owner' });
      expect([...res.body.permissions].sort()).toEqual([...PERMISSIONS].sort());
    }

    // Caller is the only member, as owner; they can administer it.
    const list = await as(h.app, home.tokens.analyst).get('/organization/members').set('X-Organization-Id', newId);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ userId: me.userId, role: 'owner' })]);

    const orgs = await as(h.app, home.tokens.analyst).get('/organizations');
    expect(orgs.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: home.organizationId, role: 'analyst' }),
        expect.objectContaining({ id: newId, role: 'owner' }),
      ]),
    );
    expect(orgs.body.data).toHaveLength(2);

    // Resources stay in their organization.
    const env = await as(h.app, home.tokens.analyst).post('/environments').set('X-Organization-Id', newSuid).send({ name: 'in_new_org' });
    expect(env.status).toBe(201);
    expect(env.body.organizationId).toBe(newId);
    expect((await as(h.app, home.ownerToken).get('/environments')).body.total).toBe(0);
    expectError(await as(h.app, home.ownerToken).get(`/environments/${env.body.id}`), 404);
    // Home org members are not members of the new one.
    expectError(await as(h.app, home.ownerToken).get('/organization').set('X-Organization-Id', newId), 403, 'no_organization_access');
  });

  test('POST /organizations validates its body', async () => {
    const org = await createTestOrg(h.services);
    const before = (await as(h.app, org.ownerToken).get('/organizations')).body.data.length;
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: '' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: 'x', plan: 'platinum' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organizations').send({ name: 'x', owner: 'someone' }), 400);
    expect((await as(h.app, org.ownerToken).get('/organizations')).body.data).toHaveLength(before);
  });

  test('X-Organization-Id naming an organization the user is not in gives 403 no_organization_access', async () => {
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
  });
});

describe('members', () => {
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

  test.each(['developer', 'analyst', 'viewer'] as const)('%s cannot add, change, remove members or issue them tokens', async (role) => {
    const org = await createTestOrg(h.services);
    const viewer = await memberFor(org, 'viewer');
    const before = await members(org);
    const t = org.tokens[role];
    expectError(await as(h.app, t).post('/organization/members').send({ email: newEmail(), role: 'viewer' }), 403, 'missing_permission');
    expectError(await as(h.app, t).patch(`/organization/members/${viewer.userId}`).send({ role: 'admin' }), 403, 'missing_permission');
    expectError(await as(h.app, t).delete(`/organization/members/${viewer.userId}`), 403, 'missing_permission');
    expectError(await as(h.app, t).post(`/organization/members/${viewer.userId}/tokens`).send({ name: 'x' }), 403, 'missing_permission');
    expectError(await as(h.app, t).patch('/organization').send({ name: 'renamed' }), 403, 'missing_permission');
    expect(await members(org)).toEqual(before);
  });

  test.each(['owner', 'admin'] as const)('%s adds a member, changes the role and removes them', async (role) => {
    const org = await createTestOrg(h.services);
    const email = newEmail();
    const added = await as(h.app, org.tokens[role]).post('/organization/members').send({ email: email.toUpperCase(), name: 'New Person', role: 'viewer' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ email, name: 'New Person', role: 'viewer' });
    const userId = added.body.userId as string;
    expect((await members(org)).find((m) => m.userId === userId)).toMatchObject({ role: 'viewer', email });

    // A token for the new member acts with their role.
    const issued = await as(h.app, org.tokens[role]).post(`/organization/members/${userId}/tokens`).send({ name: 'for-new' });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ userId, organizationId: org.organizationId, name: 'for-new' });
    const memberToken = issued.body.token as string;
    expect((await as(h.app, memberToken).get('/organization')).body).toMatchObject({ id: org.organizationId, role: 'viewer' });
    expectError(await as(h.app, memberToken).post('/environments').send({ name: 'nope' }), 403, 'missing_permission');

    const changed = await as(h.app, org.tokens[role]).patch(`/organization/members/${userId}`).send({ role: 'developer' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ userId, role: 'developer' });
    expect((await members(org)).find((m) => m.userId === userId)?.role).toBe('developer');
    // The new role applies to the existing token at once.
    expect((await as(h.app, memberToken).get('/organization')).body.role).toBe('developer');
    expect((await as(h.app, memberToken).post('/environments').send({ name: 'now_allowed' })).status).toBe(201);

    const removed = await as(h.app, org.tokens[role]).delete(`/organization/members/${userId}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ userId, role: 'developer' });
    expect((await members(org)).map((m) => m.userId)).not.toContain(userId);
    expectError(await as(h.app, memberToken).get('/organization'), 403, 'no_organization_access');
  });

  test('adding an existing member gives 409 (e-mail compared case-insensitively)', async () => {
    const org = await createTestOrg(h.services);
    const viewer = await memberFor(org, 'viewer');
    const before = await members(org);
    const res = await as(h.app, org.ownerToken).post('/organization/members').send({ email: viewer.email, role: 'admin' });
    expectError(res, 409, 'already_member');
    const upper = await as(h.app, org.ownerToken).post('/organization/members').send({ email: viewer.email.toUpperCase(), role: 'admin' });
    expectError(upper, 409, 'already_member');
    expect(await members(org)).toEqual(before);
  });

  test('an existing user of another organization can be added, and then switches between both', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const bViewer = await memberFor(b, 'viewer');
    const added = await as(h.app, a.ownerToken).post('/organization/members').send({ email: bViewer.email, role: 'developer' });
    expect(added.status).toBe(201);
    expect(added.body.userId).toBe(bViewer.userId);
    const inA = await as(h.app, b.tokens.viewer).get('/organization').set('X-Organization-Id', a.organizationId);
    expect(inA.body).toMatchObject({ id: a.organizationId, role: 'developer' });
    expect((await as(h.app, b.tokens.viewer).get('/organization')).body).toMatchObject({ id: b.organizationId, role: 'viewer' });
  });

  test('member validation: bad e-mail, unknown role, unknown fields, unknown member', async () => {
    const org = await createTestOrg(h.services);
    const before = await members(org);
    expectError(await as(h.app, org.ownerToken).post('/organization/members').send({ email: 'not-an-email', role: 'viewer' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organization/members').send({ email: newEmail(), role: 'superuser' }), 400);
    expectError(await as(h.app, org.ownerToken).post('/organization/members').send({ email: newEmail(), role: 'viewer', admin: true }), 400);
    expect(await members(org)).toEqual(before);
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
    expect((await memberFor(b, 'viewer')).role).toBe('viewer');
  });
});

describe('the owner role', () => {
  test('an admin cannot add an owner, promote to owner, or change or remove an owner', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const dev = await memberFor(org, 'developer');
    const before = await members(org);
    expectError(await as(h.app, org.tokens.admin).post('/organization/members').send({ email: newEmail(), role: 'owner' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${dev.userId}`).send({ role: 'owner' }), 403, 'owner_required');
    const self = await memberFor(org, 'admin');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${self.userId}`).send({ role: 'owner' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).patch(`/organization/members/${owner.userId}`).send({ role: 'viewer' }), 403, 'owner_required');
    expectError(await as(h.app, org.tokens.admin).delete(`/organization/members/${owner.userId}`), 403, 'owner_required');
    expect(await members(org)).toEqual(before);
  });

  test('an admin cannot mint a token for an owner (it would bypass owner_required)', async () => {
    const org = await createTestOrg(h.services);
    const owner = await memberFor(org, 'owner');
    const res = await as(h.app, org.tokens.admin).post(`/organization/members/${owner.userId}/tokens`).send({ name: 'stolen' });
    expectError(res, 403, 'owner_required');
    const rows = await h.services.db.query(`SELECT count(*)::int AS n FROM access_tokens WHERE user_id = $1 AND name = 'stolen'`, [owner.userId]);
    expect(rows[0].n).toBe(0);
    // An owner may.
    const ok = await as(h.app, org.ownerToken).post(`/organization/members/${owner.userId}/tokens`).send({ name: 'mine' });
    expect(ok.status).toBe(201);
    // An admin may for non-owners.
    const dev = await memberFor(org, 'developer');
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
    const added = await as(h.app, org.ownerToken).post('/organization/members').send({ email: newEmail(), role: 'owner' });
    expect(added.status).toBe(201);
    expect(added.body.role).toBe('owner');
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
    expectError(await as(h.app, org.ownerToken).get('/organization'), 403, 'no_organization_access');
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
    const owners = (await h.services.db.query(`SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [org.organizationId]))[0].n;
    expect(owners).toBe(1);
  });
});

describe('removal', () => {
  test("removing a member makes that member's token get 403 in that organization", async () => {
    const org = await createTestOrg(h.services);
    const dev = await memberFor(org, 'developer');
    expect((await as(h.app, org.tokens.developer).get('/environments')).status).toBe(200);
    const res = await as(h.app, org.tokens.admin).delete(`/organization/members/${dev.userId}`);
    expect(res.status).toBe(200);
    for (const url of ['/organization', '/environments', '/tokens']) {
      expectError(await as(h.app, org.tokens.developer).get(url), 403, 'no_organization_access');
    }
    expectError(await as(h.app, org.tokens.developer).post('/environments').send({ name: 'after_removal' }), 403, 'no_organization_access');
    expectError(await as(h.app, org.tokens.developer).get('/organization').set('X-Organization-Id', org.organizationSuid), 403, 'no_organization_access');
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(0);
    // Re-adding restores access with the new role.
    const back = await as(h.app, org.ownerToken).post('/organization/members').send({ email: dev.email, role: 'viewer' });
    expect(back.status).toBe(201);
    expect((await as(h.app, org.tokens.developer).get('/organization')).body.role).toBe('viewer');
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

  test('a token issued for a member via POST /organization/members/{userId}/tokens works as that member', async () => {
    const org = await createTestOrg(h.services);
    const analyst = await memberFor(org, 'analyst');
    const res = await as(h.app, org.tokens.admin).post(`/organization/members/${analyst.userId}/tokens`).send({ name: 'issued', expiresInDays: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userId: analyst.userId, organizationId: org.organizationId, name: 'issued' });
    expect(res.body.expiresAt).toEqual(expect.any(String));
    const me = await as(h.app, res.body.token).get('/organization');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: org.organizationId, role: 'analyst' });
    // It is the analyst's token: it appears in the analyst's list, not the admin's.
    expect((await as(h.app, org.tokens.analyst).get('/tokens')).body.data.map((t: { id: string }) => t.id)).toContain(res.body.id);
    expect((await as(h.app, org.tokens.admin).get('/tokens')).body.data.map((t: { id: string }) => t.id)).not.toContain(res.body.id);
    // The analyst can revoke it.
    expect((await as(h.app, org.tokens.analyst).delete(`/tokens/${res.body.id}`)).status).toBe(200);
    expectError(await as(h.app, res.body.token).get('/organization'), 401, 'unauthorized');
  });

  test('a token minted by another member acts only in its own organization', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const bViewer = await memberFor(b, 'viewer');
    expect((await as(h.app, a.ownerToken).post('/organization/members').send({ email: bViewer.email, role: 'viewer' })).status).toBe(201);
    const minted = await as(h.app, a.tokens.admin).post(`/organization/members/${bViewer.userId}/tokens`).send({ name: 'minted' });
    expect(minted.status).toBe(201);
    expect((await as(h.app, minted.body.token).get('/organization')).body).toMatchObject({ id: a.organizationId });
    // The admin of A must not reach B through a token they minted for a user who is also in B.
    expectError(await as(h.app, minted.body.token).get('/organization').set('X-Organization-Id', b.organizationId), 403, 'no_organization_access');
    // The user's own token still switches between both.
    expect((await as(h.app, b.tokens.viewer).get('/organization').set('X-Organization-Id', a.organizationId)).status).toBe(200);
  });

  test('an expired token gives 401', async () => {
    const org = await createTestOrg(h.services);
    const issued = await as(h.app, org.tokens.developer).post('/tokens').send({ name: 'expiring', expiresInDays: 1 });
    expect((await as(h.app, issued.body.token).get('/organization')).status).toBe(200);
    await h.services.db.query(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [issued.body.id]);
    const res = await as(h.app, issued.body.token).get('/organization');
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
