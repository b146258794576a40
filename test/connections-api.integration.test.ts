import request from 'supertest';
import { as, connectionConfig, createConnection, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const GENERIC = ['basic-auth', 'database', 'api-key', 'sftp', 'smtp', 'custom', 'form-auth', 'custom-oauth', 'webhook-signing'];
const ENVELOPE = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const secretValue = (label: string) => `${label}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

const create = (org: TestOrg, body: Record<string, unknown>) => createConnection(h.app, org, body);
const configOf = (org: TestOrg, id: string) => connectionConfig(h.app, org, id);

async function listOf(org: TestOrg) {
  const res = await as(h.app, org.ownerToken).get('/connections');
  expect(res.status).toBe(200);
  return res.body as { total: number; data: Array<Record<string, any>> };
}

async function rawRow(id: string) {
  const rows = await h.services.db.query(`SELECT name, type, variant, config_encrypted, metadata, settings, updated_at FROM connections WHERE id = $1`, [id]);
  return rows[0] as Record<string, any> | undefined;
}

describe('type catalog', () => {
  test('GET /connections/types/list returns 20 distinct types including the 9 generic ones', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.tokens.viewer).get('/connections/types/list');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['types']);
    const types: string[] = res.body.types;
    expect(types).toHaveLength(20);
    expect(new Set(types).size).toBe(20);
    expect(types).toEqual(expect.arrayContaining(GENERIC));
    for (const t of types) expect(typeof t).toBe('string');
  });

  test('the type list and schemas are public (no token needed)', async () => {
    const list = await request(h.app).get('/connections/types/list');
    expect(list.status).toBe(200);
    expect(list.body.types).toHaveLength(20);
    const schema = await request(h.app).get('/connections/types/basic-auth/schema');
    expect(schema.status).toBe(200);
    expect(schema.body.type).toBe('basic-auth');
  });

  test('every listed type has a draft-07 object schema', async () => {
    const list = await request(h.app).get('/connections/types/list');
    for (const type of list.body.types as string[]) {
      const res = await request(h.app).get(`/connections/types/${type}/schema`);
      expect(res.status).toBe(200);
      expect(res.body.type).toBe(type);
      expect(res.body.schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(res.body.schema.type).toBe('object');
    }
  });

  test('the api-key schema is exactly as interface.md 2.3 says', async () => {
    const res = await request(h.app).get('/connections/types/api-key/schema');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['schema', 'type']);
    const s = res.body.schema;
    expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(s.type).toBe('object');
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(['apiKey']);
    expect(Object.keys(s.properties).sort()).toEqual(['apiKey', 'headerName', 'prefix']);
    expect(s.properties.apiKey).toMatchObject({ type: 'string', minLength: 1, writeOnly: true });
    expect(s.properties.headerName).toMatchObject({ type: 'string', default: 'Authorization' });
    expect(s.properties.prefix).toMatchObject({ type: 'string', default: 'Bearer' });
  });

  test('form-auth publishes a union keyed on variant', async () => {
    const res = await request(h.app).get('/connections/types/form-auth/schema');
    expect(res.status).toBe(200);
    const s = res.body.schema;
    expect(s.discriminator).toEqual({ propertyName: 'variant' });
    expect(s.required).toContain('variant');
    expect(Array.isArray(s.oneOf)).toBe(true);
    const variants = s.oneOf.map((b: any) => b.properties.variant.const);
    expect(variants).toContain('password');
    for (const branch of s.oneOf) expect(branch.required).toContain('variant');
  });

  test('unknown type schema is 404', async () => {
    const res = await request(h.app).get('/connections/types/no-such-type/schema');
    expectError(res, 404, 'not_found');
    // Prototype keys are not types either.
    expectError(await request(h.app).get('/connections/types/constructor/schema'), 404, 'not_found');
    expectError(await request(h.app).get('/connections/types/__proto__/schema'), 404, 'not_found');
  });

  test('a returned schema cannot be mutated into the catalog', async () => {
    const first = await request(h.app).get('/connections/types/api-key/schema');
    expect(first.body.schema.properties.prefix.default).toBe('Bearer');
    // The catalog hands out copies; a second call still sees the original.
    const cloned = h.services.catalog.schema('api-key')!;
    cloned.properties!.prefix.default = 'Mutated';
    const second = await request(h.app).get('/connections/types/api-key/schema');
    expect(second.body.schema.properties.prefix.default).toBe('Bearer');
  });
});

describe('create', () => {
  test('201 with config only as an encrypted envelope; defaults filled in the decrypted config', async () => {
    const org = await createTestOrg(h.services);
    const apiKey = secretValue('key');
    const res = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'my_api', type: 'api-key', config: { apiKey }, metadata: { team: 'core' } });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toMatchObject({
      name: 'my_api',
      type: 'api-key',
      organizationId: org.organizationId,
      userId: org.ownerId,
      metadata: { team: 'core' },
      settings: {},
    });
    expect(c.id).toMatch(UUID);
    expect(typeof c.suid).toBe('string');
    expect(c.suid.length).toBeGreaterThan(0);
    expect(c).not.toHaveProperty('variant');
    expect(typeof c.config).toBe('string');
    expect(c.config).toMatch(ENVELOPE);
    expect(JSON.stringify(c)).not.toContain(apiKey);
    expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
    expect(new Date(c.updatedAt).toISOString()).toBe(c.updatedAt);

    // Stored encrypted, not in plaintext.
    const row = await rawRow(c.id);
    expect(row!.config_encrypted).toBe(c.config);
    expect(row!.config_encrypted).not.toContain(apiKey);

    expect(await configOf(org, c.id)).toEqual({ apiKey, headerName: 'Authorization', prefix: 'Bearer' });
  });

  test('given optional fields are kept, not overwritten by defaults', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'k', type: 'api-key', config: { apiKey: 'abc', headerName: 'X-Api-Key', prefix: '' } });
    expect(await configOf(org, c.id)).toEqual({ apiKey: 'abc', headerName: 'X-Api-Key', prefix: '' });
  });

  test('basic-auth as in the create example', async () => {
    const org = await createTestOrg(h.services);
    const password = secretValue('pw');
    const c = await create(org, { name: 'basic', type: 'basic-auth', config: { username: 'alice', password } });
    expect(JSON.stringify(c)).not.toContain(password);
    expect(await configOf(org, c.id)).toEqual({ username: 'alice', password });
  });

  test('form-auth: created connection reports variant "password" and branch defaults are filled', async () => {
    const org = await createTestOrg(h.services);
    const password = secretValue('pw');
    const c = await create(org, {
      name: 'form_login',
      type: 'form-auth',
      config: { variant: 'password', loginUrl: 'https://example.test/login', username: 'bob', password },
    });
    expect(c.variant).toBe('password');
    expect(JSON.stringify(c)).not.toContain(password);
    const got = await as(h.app, org.ownerToken).get(`/connections/${c.id}`);
    expect(got.body.variant).toBe('password');
    expect(await configOf(org, c.id)).toEqual({
      variant: 'password',
      loginUrl: 'https://example.test/login',
      username: 'bob',
      password,
      usernameField: 'username',
      passwordField: 'password',
    });
  });

  test('webhook-signing: a union keyed on scheme; an hmac connection reports variant "hmac", its defaults filled, its secret never shown', async () => {
    const schema = await request(h.app).get('/connections/types/webhook-signing/schema');
    expect(schema.body.schema.discriminator).toEqual({ propertyName: 'scheme' });
    const org = await createTestOrg(h.services);
    const secret = secretValue('signing-secret');
    const c = await create(org, { name: 'signer', type: 'webhook-signing', config: { scheme: 'hmac', secret } });
    expect(c.variant).toBe('hmac');
    expect(JSON.stringify(c)).not.toContain(secret);
    expect(await configOf(org, c.id)).toEqual({
      scheme: 'hmac',
      secret,
      header: 'X-Signature',
      algorithm: 'sha256',
      encoding: 'hex',
      timestampHeader: 'X-Signature-Timestamp',
      payload: '{timestamp}.{body}',
    });
  });

  test('form-auth: a config without a variant, or with an unknown one, is a config mismatch', async () => {
    const org = await createTestOrg(h.services);
    const missing = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'f1', type: 'form-auth', config: { loginUrl: 'https://example.test/login', username: 'u', password: 'p' } });
    expectError(missing, 400, 'config_mismatch');
    expect(missing.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'config.variant' })]));
    const unknown = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'f2', type: 'form-auth', config: { variant: 'magic', loginUrl: 'https://example.test/login' } });
    expectError(unknown, 400, 'config_mismatch');
    expect(unknown.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'config.variant' })]));
    // Fields of the other branch are rejected.
    const mixed = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({
        name: 'f3',
        type: 'form-auth',
        config: { variant: 'password', loginUrl: 'https://example.test/login', username: 'u', password: 'p', token: 't' },
      });
    expectError(mixed, 400, 'config_mismatch');
    expect(mixed.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'config.token' })]));
    expect((await listOf(org)).total).toBe(0);
  });

  test('400 unknown type, code unknown_connection_type, nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'not-a-type', config: { apiKey: 'k' } });
    expectError(res, 400, 'unknown_connection_type');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'type' })]);
    const proto = await as(h.app, org.ownerToken).post('/connections').send({ name: 'y', type: 'toString', config: {} });
    expectError(proto, 400, 'unknown_connection_type');
    expect(await listOf(org)).toEqual({ total: 0, data: [] });
  });

  test('400 config mismatch with field-level details, secrets not echoed, nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const leaked = secretValue('leak');
    const missing = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'api-key', config: { headerName: 'X-Key' } });
    expectError(missing, 400, 'config_mismatch');
    expect(missing.body.error.details).toEqual([{ path: 'config.apiKey', message: expect.any(String) }]);

    const empty = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'api-key', config: { apiKey: '' } });
    expectError(empty, 400, 'config_mismatch');
    expect(empty.body.error.details).toEqual([expect.objectContaining({ path: 'config.apiKey' })]);

    const extra = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'api-key', config: { apiKey: leaked, secretish: leaked } });
    expectError(extra, 400, 'config_mismatch');
    expect(extra.body.error.details).toEqual([expect.objectContaining({ path: 'config.secretish' })]);
    expect(JSON.stringify(extra.body)).not.toContain(leaked);

    const wrongType = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'api-key', config: { apiKey: 12345 } });
    expectError(wrongType, 400, 'config_mismatch');
    expect(wrongType.body.error.details).toEqual([expect.objectContaining({ path: 'config.apiKey' })]);

    for (const config of [null, 'a-string', ['apiKey'], 42]) {
      const res = await as(h.app, org.ownerToken).post('/connections').send({ name: 'x', type: 'api-key', config });
      expectError(res, 400, 'config_mismatch');
    }

    const dbBad = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'database', config: { engine: 'sqlite', host: 'h', database: 'd', username: 'u', password: leaked, port: 0 } });
    expectError(dbBad, 400, 'config_mismatch');
    const paths = dbBad.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['config.engine', 'config.port']));
    expect(JSON.stringify(dbBad.body)).not.toContain(leaked);

    expect(await listOf(org)).toEqual({ total: 0, data: [] });
  });

  test('missing config is a 400', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken).post('/connections').send({ name: 'x', type: 'api-key' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'config' })]));
    expect((await listOf(org)).total).toBe(0);
  });

  test('400 duplicate name within an organization; the same name in another organization is fine', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const first = await create(org, { name: 'shared_name', type: 'basic-auth', config: { username: 'a', password: 'first-pw' } });
    const dup = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'shared_name', type: 'api-key', config: { apiKey: 'second' } });
    expectError(dup, 400, 'duplicate_name');
    expect(dup.body.error.details).toEqual([expect.objectContaining({ path: 'name' })]);
    // The original is untouched and still the only one.
    const list = await listOf(org);
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({ id: first.id, type: 'basic-auth', config: first.config });
    expect(await configOf(org, first.id)).toEqual({ username: 'a', password: 'first-pw' });

    const elsewhere = await create(other, { name: 'shared_name', type: 'api-key', config: { apiKey: 'k' } });
    expect(elsewhere.organizationId).toBe(other.organizationId);
  });

  test('concurrent creates of one name: exactly one wins, the other is duplicate_name', async () => {
    const org = await createTestOrg(h.services);
    const send = () =>
      as(h.app, org.ownerToken)
        .post('/connections')
        .send({ name: 'raced', type: 'api-key', config: { apiKey: 'k' } });
    const results = await Promise.all([send(), send(), send(), send()]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.error.code).toBe('duplicate_name');
    expect((await listOf(org)).total).toBe(1);
  });

  test('400 for a name that is not an identifier', async () => {
    const org = await createTestOrg(h.services);
    for (const name of ['1abc', 'has space', 'has-dash', 'dot.name', '', 'ünïcode', '$x']) {
      const res = await as(h.app, org.ownerToken)
        .post('/connections')
        .send({ name, type: 'api-key', config: { apiKey: 'k' } });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' })]));
    }
    for (const name of ['_x', 'abc', 'A1_b2']) await create(org, { name, type: 'api-key', config: { apiKey: 'k' } });
    expect((await listOf(org)).total).toBe(3);
  });

  test('unknown body fields are rejected', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken)
      .post('/connections')
      .send({ name: 'x', type: 'api-key', config: { apiKey: 'k' }, organizationId: org.organizationId, id: UNKNOWN_ID });
    expectError(res, 400, 'validation_failed');
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['organizationId', 'id']));
    expect((await listOf(org)).total).toBe(0);
  });
});

describe('read and list', () => {
  test('GET /connections returns {total, data} of this organization, newest first', async () => {
    const org = await createTestOrg(h.services);
    expect(await listOf(org)).toEqual({ total: 0, data: [] });
    const a = await create(org, { name: 'a', type: 'api-key', config: { apiKey: 'ka' } });
    const b = await create(org, { name: 'b', type: 'basic-auth', config: { username: 'u', password: 'pb' } });
    const list = await listOf(org);
    expect(Object.keys(list).sort()).toEqual(['data', 'total']);
    expect(list.total).toBe(2);
    expect(list.data.map((c) => c.id)).toEqual([b.id, a.id]);
    expect(list.data[1]).toEqual(a);
    for (const c of list.data) {
      expect(c.config).toMatch(ENVELOPE);
      expect(JSON.stringify(c)).not.toMatch(/"(ka|pb)"/);
    }
  });

  test('list paging: limit and offset; total counts all', async () => {
    const org = await createTestOrg(h.services);
    for (const n of ['c1', 'c2', 'c3']) await create(org, { name: n, type: 'api-key', config: { apiKey: 'k' } });
    const page = await as(h.app, org.ownerToken).get('/connections?limit=2&offset=1');
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.data).toHaveLength(2);
    const bad = await as(h.app, org.ownerToken).get('/connections?limit=0');
    expectError(bad, 400, 'validation_failed');
  });

  test('GET /connections/{id} 200 then 404 for an unknown id', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'one', type: 'api-key', config: { apiKey: 'k' } });
    const got = await as(h.app, org.ownerToken).get(`/connections/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(c);
    expectError(await as(h.app, org.ownerToken).get(`/connections/${UNKNOWN_ID}`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).get(`/connections/${UNKNOWN_ID}/config`), 404, 'not_found');
  });

  test('GET /connections/{id}/config returns the decrypted object, not cacheable', async () => {
    const org = await createTestOrg(h.services);
    const password = secretValue('pw');
    const c = await create(org, { name: 'smtp_out', type: 'smtp', config: { host: 'mail.example.test', username: 'u', password, from: 'a@example.test' } });
    const res = await as(h.app, org.tokens.developer).get(`/connections/${c.id}/config`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ host: 'mail.example.test', port: 587, secure: false, username: 'u', password, from: 'a@example.test' });
  });

  test('a non-UUID id is a 400 on params validation for every id route', async () => {
    const org = await createTestOrg(h.services);
    const token = org.ownerToken;
    const checks = [
      as(h.app, token).get('/connections/not-a-uuid'),
      as(h.app, token).get('/connections/not-a-uuid/config'),
      as(h.app, token).patch('/connections/not-a-uuid').send({ name: 'x' }),
      as(h.app, token).delete('/connections/not-a-uuid'),
      as(h.app, token).get('/connections/12345'),
    ];
    for (const res of await Promise.all(checks)) {
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'params.id' })]);
    }
  });
});

describe('update', () => {
  test('PATCH config replaces the whole config: omitted fields are dropped (defaults re-applied)', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'k', type: 'api-key', config: { apiKey: 'old', headerName: 'X-Old', prefix: 'Token' } });
    expect(await configOf(org, c.id)).toEqual({ apiKey: 'old', headerName: 'X-Old', prefix: 'Token' });
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ config: { apiKey: 'new' } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(c.id);
    expect(res.body.config).toMatch(ENVELOPE);
    expect(res.body.config).not.toBe(c.config);
    expect(JSON.stringify(res.body)).not.toContain('"new"');
    expect(await configOf(org, c.id)).toEqual({ apiKey: 'new', headerName: 'Authorization', prefix: 'Bearer' });
  });

  test('PATCH config drops fields that have no default', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'sm', type: 'smtp', config: { host: 'h', username: 'u', password: 'p', from: 'x@example.test' } });
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ config: { host: 'h2', username: 'u2', password: 'p2' } });
    expect(res.status).toBe(200);
    const cfg = await configOf(org, c.id);
    expect(cfg).toEqual({ host: 'h2', port: 587, secure: false, username: 'u2', password: 'p2' });
    expect(cfg).not.toHaveProperty('from');
  });

  test('PATCH without config leaves the config as is', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'orig', type: 'basic-auth', config: { username: 'u', password: 'p' } });
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ name: 'renamed', metadata: { owner: 'ops' }, settings: { retries: 3 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, name: 'renamed', metadata: { owner: 'ops' }, settings: { retries: 3 }, config: c.config, type: 'basic-auth' });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(c.updatedAt).getTime());
    expect(res.body.createdAt).toBe(c.createdAt);
    expect(await configOf(org, c.id)).toEqual({ username: 'u', password: 'p' });
    const got = await as(h.app, org.ownerToken).get(`/connections/${c.id}`);
    expect(got.body).toEqual(res.body);
  });

  test('PATCH with an empty body is a no-op 200', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'same', type: 'api-key', config: { apiKey: 'k' } });
    const res = await as(h.app, org.ownerToken).patch(`/connections/${c.id}`).send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c);
  });

  test('PATCH form-auth config to another variant updates the reported variant', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'f', type: 'form-auth', config: { variant: 'password', loginUrl: 'https://e.test/l', username: 'u', password: 'p' } });
    expect(c.variant).toBe('password');
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ config: { variant: 'token', loginUrl: 'https://e.test/t', token: 'tok' } });
    expect(res.status).toBe(200);
    expect(res.body.variant).toBe('token');
    expect(await configOf(org, c.id)).toEqual({ variant: 'token', loginUrl: 'https://e.test/t', token: 'tok', tokenField: 'token' });
  });

  test('PATCH config mismatch is 400 and changes nothing, not even other fields in the same request', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'keep', type: 'api-key', config: { apiKey: 'orig' }, metadata: { v: 1 } });
    const before = await rawRow(c.id);
    const res = await as(h.app, org.ownerToken)
      .patch(`/connections/${c.id}`)
      .send({ name: 'changed', metadata: { v: 2 }, config: { headerName: 'X' } });
    expectError(res, 400, 'config_mismatch');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'config.apiKey' })]);
    expect(await rawRow(c.id)).toEqual(before);
    expect(await configOf(org, c.id)).toEqual({ apiKey: 'orig', headerName: 'Authorization', prefix: 'Bearer' });
    const got = await as(h.app, org.ownerToken).get(`/connections/${c.id}`);
    expect(got.body).toEqual(c);
  });

  test('PATCH with a null or non-object config is a config mismatch, not a no-op', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'nullable', type: 'api-key', config: { apiKey: 'k' } });
    const before = await rawRow(c.id);
    for (const config of [null, '', 0, false, []]) {
      const res = await as(h.app, org.ownerToken).patch(`/connections/${c.id}`).send({ config });
      expectError(res, 400, 'config_mismatch');
    }
    expect(await rawRow(c.id)).toEqual(before);
  });

  test('PATCH unknown field such as type is 400 and changes nothing', async () => {
    const org = await createTestOrg(h.services);
    const c = await create(org, { name: 'typed', type: 'api-key', config: { apiKey: 'k' } });
    const before = await rawRow(c.id);
    for (const body of [{ type: 'basic-auth' }, { name: 'n2', organizationId: UNKNOWN_ID }, { userId: UNKNOWN_ID }, { variant: 'x' }]) {
      const res = await as(h.app, org.ownerToken).patch(`/connections/${c.id}`).send(body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details).toEqual(expect.arrayContaining([{ path: Object.keys(body).find((k) => k !== 'name'), message: 'Unknown field' }]));
    }
    expect(await rawRow(c.id)).toEqual(before);
  });

  test('PATCH name: duplicate and invalid are 400 and change nothing; renaming frees the old name', async () => {
    const org = await createTestOrg(h.services);
    const a = await create(org, { name: 'alpha', type: 'api-key', config: { apiKey: 'ka' } });
    const b = await create(org, { name: 'beta', type: 'api-key', config: { apiKey: 'kb' } });
    const beforeB = await rawRow(b.id);

    const dup = await as(h.app, org.ownerToken)
      .patch(`/connections/${b.id}`)
      .send({ name: 'alpha', config: { apiKey: 'changed' } });
    expectError(dup, 400, 'duplicate_name');
    expect(await rawRow(b.id)).toEqual(beforeB);
    expect(await configOf(org, b.id)).toMatchObject({ apiKey: 'kb' });

    const invalid = await as(h.app, org.ownerToken).patch(`/connections/${b.id}`).send({ name: 'not valid' });
    expectError(invalid, 400, 'validation_failed');
    expect(await rawRow(b.id)).toEqual(beforeB);

    // Renaming to its own name is fine.
    const self = await as(h.app, org.ownerToken).patch(`/connections/${a.id}`).send({ name: 'alpha' });
    expect(self.status).toBe(200);

    const renamed = await as(h.app, org.ownerToken).patch(`/connections/${a.id}`).send({ name: 'gamma' });
    expect(renamed.status).toBe(200);
    const reuse = await as(h.app, org.ownerToken).patch(`/connections/${b.id}`).send({ name: 'alpha' });
    expect(reuse.status).toBe(200);
    expect(reuse.body.name).toBe('alpha');
  });

  test('PATCH an unknown id is 404', async () => {
    const org = await createTestOrg(h.services);
    expectError(await as(h.app, org.ownerToken).patch(`/connections/${UNKNOWN_ID}`).send({ name: 'x' }), 404, 'not_found');
  });
});

describe('delete', () => {
  test('DELETE returns the deleted connection, then GET, config, PATCH and DELETE are 404', async () => {
    const org = await createTestOrg(h.services);
    const keep = await create(org, { name: 'keep', type: 'api-key', config: { apiKey: 'k' } });
    const c = await create(org, { name: 'gone', type: 'api-key', config: { apiKey: 'k2' } });
    const res = await as(h.app, org.ownerToken).delete(`/connections/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c);
    expectError(await as(h.app, org.ownerToken).get(`/connections/${c.id}`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).get(`/connections/${c.id}/config`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).patch(`/connections/${c.id}`).send({ name: 'back' }), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).delete(`/connections/${c.id}`), 404, 'not_found');
    expect(await rawRow(c.id)).toBeUndefined();
    const list = await listOf(org);
    expect(list.total).toBe(1);
    expect(list.data.map((x) => x.id)).toEqual([keep.id]);
    // The name is free again.
    await create(org, { name: 'gone', type: 'basic-auth', config: { username: 'u', password: 'p' } });
  });
});
