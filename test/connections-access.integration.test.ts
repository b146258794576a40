import request from 'supertest';
import { type Permission, ROLE_PERMISSIONS, ROLES, type Role } from '../src/auth/roles';
import { as, connectionConfig, createConnection, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const create = (org: TestOrg, body: Record<string, unknown>) => createConnection(h.app, org, body);
const configOf = (org: TestOrg, id: string) => connectionConfig(h.app, org, id);

async function rawRow(id: string) {
  const rows = await h.services.db.query(`SELECT * FROM connections WHERE id = $1`, [id]);
  return rows[0] as Record<string, any> | undefined;
}

async function rawRowsOf(organizationId: string) {
  return h.services.db.query(`SELECT * FROM connections WHERE organization_id = $1 ORDER BY id`, [organizationId]) as Promise<Record<string, any>[]>;
}

const can = (role: Role, permission: Permission) => ROLE_PERMISSIONS[role].includes(permission);

describe('role table sanity', () => {
  test('the matrix below is not vacuous: some roles can and some cannot', () => {
    expect(ROLES).toEqual(['owner', 'admin', 'developer', 'analyst', 'viewer']);
    for (const p of ['secrets:view', 'secrets:admin'] as const) {
      expect(ROLES.filter((r) => can(r, p)).length).toBeGreaterThan(0);
      expect(ROLES.filter((r) => !can(r, p)).length).toBeGreaterThan(0);
    }
  });
});

test('the secrets permissions are held by owner, admin and developer only', () => {
  // Pinned here so a change to the role table that widens access to secrets is noticed.
  const holders = (p: Permission) => ROLES.filter((r) => can(r, p));
  expect(holders('secrets:view')).toEqual(['owner', 'admin', 'developer']);
  expect(holders('secrets:admin')).toEqual(['owner', 'admin', 'developer']);
});

describe('permission matrix', () => {
  describe.each(ROLES.map((r) => [r]))('%s', (role) => {
    const view = can(role, 'secrets:view');
    const admin = can(role, 'secrets:admin');

    test(`GET /connections → ${view ? 200 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const c = await create(org, { name: 'listed', type: 'api-key', config: { apiKey: 'k' } });
      const res = await as(h.app, org.tokens[role]).get('/connections');
      if (view) {
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(1);
        expect(res.body.data[0].id).toBe(c.id);
      } else {
        expectError(res, 403, 'missing_permission');
        expect(JSON.stringify(res.body)).not.toContain(c.id);
      }
    });

    test(`GET /connections/{id} → ${view ? 200 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const c = await create(org, { name: 'one', type: 'api-key', config: { apiKey: 'k' } });
      const res = await as(h.app, org.tokens[role]).get(`/connections/${c.id}`);
      if (view) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual(c);
      } else {
        expectError(res, 403, 'missing_permission');
      }
    });

    test(`GET /connections/{id}/config → ${view ? 200 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const secret = `s-${role}-${Date.now()}`;
      const c = await create(org, { name: 'one', type: 'api-key', config: { apiKey: secret } });
      const res = await as(h.app, org.tokens[role]).get(`/connections/${c.id}/config`);
      if (view) {
        expect(res.status).toBe(200);
        expect(res.body.apiKey).toBe(secret);
      } else {
        expectError(res, 403, 'missing_permission');
        expect(res.text).not.toContain(secret);
      }
    });

    test(`POST /connections → ${admin ? 201 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const res = await as(h.app, org.tokens[role])
        .post('/connections')
        .send({ name: 'made', type: 'api-key', config: { apiKey: 'k' } });
      const rows = await rawRowsOf(org.organizationId);
      if (admin) {
        expect(res.status).toBe(201);
        expect(rows).toHaveLength(1);
        expect(rows[0].id).toBe(res.body.id);
        // The creator is the calling member, not the owner.
        if (role === 'owner') expect(res.body.userId).toBe(org.ownerId);
        else expect(res.body.userId).not.toBe(org.ownerId);
        expect(rows[0].user_id).toBe(res.body.userId);
      } else {
        expectError(res, 403, 'missing_permission');
        expect(rows).toHaveLength(0);
      }
    });

    test(`PATCH /connections/{id} → ${admin ? 200 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const c = await create(org, { name: 'before', type: 'api-key', config: { apiKey: 'old' } });
      const before = await rawRow(c.id);
      const res = await as(h.app, org.tokens[role])
        .patch(`/connections/${c.id}`)
        .send({ name: 'after', config: { apiKey: 'new' } });
      if (admin) {
        expect(res.status).toBe(200);
        expect(res.body.name).toBe('after');
        expect(await configOf(org, c.id)).toMatchObject({ apiKey: 'new' });
      } else {
        expectError(res, 403, 'missing_permission');
        expect(await rawRow(c.id)).toEqual(before);
      }
    });

    test(`DELETE /connections/{id} → ${admin ? 200 : 403}`, async () => {
      const org = await createTestOrg(h.services);
      const c = await create(org, { name: 'doomed', type: 'api-key', config: { apiKey: 'k' } });
      const before = await rawRow(c.id);
      const res = await as(h.app, org.tokens[role]).delete(`/connections/${c.id}`);
      if (admin) {
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(c.id);
        expect(await rawRow(c.id)).toBeUndefined();
      } else {
        expectError(res, 403, 'missing_permission');
        expect(await rawRow(c.id)).toEqual(before);
      }
    });

    test('type list and schema → 200 (public)', async () => {
      const org = await createTestOrg(h.services);
      expect((await as(h.app, org.tokens[role]).get('/connections/types/list')).status).toBe(200);
      expect((await as(h.app, org.tokens[role]).get('/connections/types/api-key/schema')).status).toBe(200);
    });
  });

  test('the permission check comes before validation and existence (no probing without permission)', async () => {
    const org = await createTestOrg(h.services);
    expectError(await as(h.app, org.tokens.viewer).get('/connections/not-a-uuid'), 403, 'missing_permission');
    expectError(await as(h.app, org.tokens.viewer).get(`/connections/${UNKNOWN_ID}`), 403, 'missing_permission');
    expectError(await as(h.app, org.tokens.viewer).post('/connections').send({ name: '1bad', type: 'nope' }), 403, 'missing_permission');
  });
});

describe('authentication', () => {
  const routes = (id: string): Array<[string, (r: ReturnType<typeof request>) => request.Test]> => [
    ['GET /connections', (r) => r.get('/connections')],
    ['POST /connections', (r) => r.post('/connections').send({ name: 'x', type: 'api-key', config: { apiKey: 'k' } })],
    ['GET /connections/{id}', (r) => r.get(`/connections/${id}`)],
    ['PATCH /connections/{id}', (r) => r.patch(`/connections/${id}`).send({ name: 'hijacked' })],
    ['DELETE /connections/{id}', (r) => r.delete(`/connections/${id}`)],
    ['GET /connections/{id}/config', (r) => r.get(`/connections/${id}/config`)],
  ];

  test('no token → 401 on every protected route; nothing changes', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'guarded', type: 'api-key', config: { apiKey: 'top-secret-401' } });
    const before = await rawRowsOf(org.organizationId);
    for (const [label, call] of routes(c.id)) {
      const res = await call(request(h.app));
      expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status: 401, code: 'unauthorized' });
      expect(res.text).not.toContain('top-secret-401');
    }
    expect(await rawRowsOf(org.organizationId)).toEqual(before);
  });

  test('garbage, malformed or revoked-looking tokens → 401', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'guarded', type: 'api-key', config: { apiKey: 'k' } });
    const before = await rawRowsOf(org.organizationId);
    const headers = ['Bearer garbage-token', 'Bearer ' + org.ownerToken + 'x', 'Basic dXNlcjpwYXNz', 'Bearer', org.ownerToken];
    for (const header of headers) {
      for (const [label, call] of routes(c.id)) {
        const res = await call(request(h.app)).set('Authorization', header);
        expect({ header, label, status: res.status }).toEqual({ header, label, status: 401 });
        expect(res.body.error.code).toBe('unauthorized');
      }
    }
    expect(await rawRowsOf(org.organizationId)).toEqual(before);
  });
});

describe('tenant isolation', () => {
  async function twoOrgs() {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const secret = `a-secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const conn = await create(a, { name: 'a_conn', type: 'basic-auth', config: { username: 'alice', password: secret }, metadata: { m: 1 } });
    return { a, b, secret, conn };
  }

  test("B's owner gets 404 reading A's connection and its config", async () => {
    const { a, b, secret, conn } = await twoOrgs();
    const get = await as(h.app, b.ownerToken).get(`/connections/${conn.id}`);
    expectError(get, 404, 'not_found');
    const cfg = await as(h.app, b.ownerToken).get(`/connections/${conn.id}/config`);
    expectError(cfg, 404, 'not_found');
    expect(cfg.text).not.toContain(secret);
    // A still reads it.
    expect((await as(h.app, a.ownerToken).get(`/connections/${conn.id}`)).status).toBe(200);
  });

  test("B's owner gets 404 patching A's connection; nothing changes", async () => {
    const { a, b, secret, conn } = await twoOrgs();
    const before = await rawRow(conn.id);
    for (const body of [{ name: 'stolen' }, { config: { username: 'mallory', password: 'x' } }, { metadata: { evil: true } }, { settings: { s: 1 } }]) {
      expectError(await as(h.app, b.ownerToken).patch(`/connections/${conn.id}`).send(body), 404, 'not_found');
    }
    expect(await rawRow(conn.id)).toEqual(before);
    expect(await configOf(a, conn.id)).toEqual({ username: 'alice', password: secret });
  });

  test("B's owner gets 404 deleting A's connection; it stays", async () => {
    const { a, b, conn } = await twoOrgs();
    const before = await rawRow(conn.id);
    expectError(await as(h.app, b.ownerToken).delete(`/connections/${conn.id}`), 404, 'not_found');
    expect(await rawRow(conn.id)).toEqual(before);
    const got = await as(h.app, a.ownerToken).get(`/connections/${conn.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(conn);
  });

  test("B's list does not contain A's connections, and vice versa", async () => {
    const { a, b, conn } = await twoOrgs();
    const bConn = await create(b, { name: 'b_conn', type: 'api-key', config: { apiKey: 'kb' } });
    const bList = await as(h.app, b.ownerToken).get('/connections');
    expect(bList.status).toBe(200);
    expect(bList.body.total).toBe(1);
    expect(bList.body.data.map((c: { id: string }) => c.id)).toEqual([bConn.id]);
    expect(JSON.stringify(bList.body)).not.toContain(conn.id);
    const aList = await as(h.app, a.ownerToken).get('/connections');
    expect(aList.body.data.map((c: { id: string }) => c.id)).toEqual([conn.id]);
    for (const c of [...aList.body.data, ...bList.body.data]) {
      expect([a.organizationId, b.organizationId]).toContain(c.organizationId);
    }
  });

  test("names are per organization: B's duplicate check does not see A's names, and renaming into A's name is fine", async () => {
    const { a, b, conn } = await twoOrgs();
    const bc = await create(b, { name: 'b_conn', type: 'api-key', config: { apiKey: 'kb' } });
    const res = await as(h.app, b.ownerToken).patch(`/connections/${bc.id}`).send({ name: 'a_conn' });
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(b.organizationId);
    expect((await as(h.app, a.ownerToken).get(`/connections/${conn.id}`)).body.name).toBe('a_conn');
  });

  test("B's owner cannot switch into A with X-Organization-Id", async () => {
    const { a, b, conn } = await twoOrgs();
    for (const orgRef of [a.organizationId, a.organizationSuid]) {
      const res = await as(h.app, b.ownerToken).get(`/connections/${conn.id}/config`).set('X-Organization-Id', orgRef);
      expectError(res, 403, 'no_organization_access');
      const list = await as(h.app, b.ownerToken).get('/connections').set('X-Organization-Id', orgRef);
      expectError(list, 403, 'no_organization_access');
    }
  });
});

describe('tampering with stored ciphertext', () => {
  test("A's config_encrypted copied into B's row: B's config read is a 500 without plaintext", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const secret = `tamper-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const source = await create(a, { name: 'src', type: 'api-key', config: { apiKey: secret } });
    const target = await create(b, { name: 'dst', type: 'api-key', config: { apiKey: 'b-own-key' } });

    const updated = await h.services.db.query(
      `UPDATE connections SET config_encrypted = (SELECT config_encrypted FROM connections WHERE id = $1) WHERE id = $2 RETURNING config_encrypted`,
      [source.id, target.id],
    );
    expect(updated[0][0].config_encrypted).toBe(source.config);

    const res = await as(h.app, b.ownerToken).get(`/connections/${target.id}/config`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: expect.objectContaining({ code: 'internal_error', message: expect.any(String) }) });
    expect(res.body.error.details).toBeUndefined();
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain('b-own-key');
    expect(res.text).not.toMatch(/decrypt|cipher|aes|gcm/i);

    // The source is unaffected.
    expect(await configOf(a, source.id)).toEqual({ apiKey: secret, headerName: 'Authorization', prefix: 'Bearer' });
  });

  test('a ciphertext moved between two connections of the same organization also fails (bound to the record)', async () => {
    const org = await createTestOrg(h.services);
    const secret = `same-org-${Date.now()}`;
    const source = await create(org, { name: 'src', type: 'api-key', config: { apiKey: secret } });
    const target = await create(org, { name: 'dst', type: 'api-key', config: { apiKey: 'other' } });
    await h.services.db.query(`UPDATE connections SET config_encrypted = $1 WHERE id = $2`, [source.config, target.id]);
    const res = await as(h.app, org.ownerToken).get(`/connections/${target.id}/config`);
    expectError(res, 500, 'internal_error');
    expect(res.text).not.toContain(secret);
  });

  test('a flipped ciphertext byte fails to decrypt', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'flip', type: 'api-key', config: { apiKey: 'flip-secret' } });
    const [v, iv, body, tag] = (c.config as string).split('.');
    const bytes = Buffer.from(body, 'base64url');
    bytes[0] ^= 0x01;
    await h.services.db.query(`UPDATE connections SET config_encrypted = $1 WHERE id = $2`, [[v, iv, bytes.toString('base64url'), tag].join('.'), c.id]);
    const res = await as(h.app, org.ownerToken).get(`/connections/${c.id}/config`);
    expectError(res, 500, 'internal_error');
    expect(res.text).not.toContain('flip-secret');
  });

  test('a tampered row can be repaired by PATCHing a new config', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'fixme', type: 'api-key', config: { apiKey: 'k' } });
    await h.services.db.query(`UPDATE connections SET config_encrypted = 'v1.garbage' WHERE id = $1`, [c.id]);
    expect((await as(h.app, org.ownerToken).get(`/connections/${c.id}/config`)).status).toBe(500);
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ config: { apiKey: 'fresh' } });
    expect(res.status).toBe(200);
    expect(await configOf(org, c.id)).toMatchObject({ apiKey: 'fresh' });
  });
});

describe('nothing half-written', () => {
  test('a batch of failing creates and patches leaves the stored state exactly as it was', async () => {
    const org = await createTestOrg(h.services);
    const a = await create(org, { name: 'a', type: 'api-key', config: { apiKey: 'ka' }, metadata: { x: 1 } });
    const b = await create(org, { name: 'b', type: 'basic-auth', config: { username: 'u', password: 'pb' } });
    const before = await rawRowsOf(org.organizationId);
    const owner = as(h.app, org.ownerToken);
    const failures = [
      owner.post('/connections').send({ name: 'a', type: 'api-key', config: { apiKey: 'dup' } }),
      owner.post('/connections').send({ name: 'c', type: 'nope', config: {} }),
      owner.post('/connections').send({ name: 'c', type: 'api-key', config: {} }),
      owner.post('/connections').send({ name: 'c d', type: 'api-key', config: { apiKey: 'k' } }),
      owner.patch(`/connections/${a.id}`).send({ name: 'b' }),
      owner.patch(`/connections/${a.id}`).send({ name: 'b', config: { apiKey: 'changed' }, metadata: { x: 2 } }),
      owner.patch(`/connections/${a.id}`).send({ metadata: { x: 3 }, config: { apiKey: '' } }),
      owner.patch(`/connections/${b.id}`).send({ config: { username: 'u2' }, settings: { s: 1 } }),
      owner.patch(`/connections/${b.id}`).send({ metadata: 'not-an-object' }),
      owner.patch(`/connections/${b.id}`).send({ type: 'api-key', config: { apiKey: 'k' } }),
    ];
    for (const res of await Promise.all(failures)) expect(res.status).toBe(400);
    expect(await rawRowsOf(org.organizationId)).toEqual(before);
    expect(await configOf(org, a.id)).toEqual({ apiKey: 'ka', headerName: 'Authorization', prefix: 'Bearer' });
    expect(await configOf(org, b.id)).toEqual({ username: 'u', password: 'pb' });
    const list = await as(h.app, org.ownerToken).get('/connections');
    expect(list.body.total).toBe(2);
  });
});
