import { Client } from 'pg';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { as, type Harness, startHarness } from './harness';
import { createTestOrg, eventually, type TestOrg } from './factories';
import { hashToken } from '../src/auth/token-secret';

/**
 * Authenticated principals are cached per process (src/auth/principal-cache.ts),
 * yet every change that ends or alters one takes effect on the next request:
 * this process's own changes clear the cache at once, any other writer's are
 * announced by the database (auth_changed), and while that announcement
 * cannot arrive (the listener is lost) nothing is answered from memory.
 * Its own database: one test disables a trigger.
 */

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = await startHarness({ isolatedDatabase: true });
  org = await createTestOrg(h.services);
  await eventually(
    async () => h.services.principalCache.isListening,
    (listening) => listening,
    10_000,
  );
});
afterAll(async () => h?.close());

const whoAmI = (token: string) => as(h.app, token).get('/organization');
const sql = (text: string, params: unknown[] = []) => h.services.db.query(text, params);

async function mintToken(): Promise<{ id: string; token: string }> {
  const res = await as(h.app, org.ownerToken)
    .post('/tokens')
    .send({ name: `t-${Date.now()}-${Math.random()}` });
  expect(res.status).toBe(201);
  return { id: res.body.id, token: res.body.token };
}

test('a used token is looked up once, then answered from memory', async () => {
  const { token } = await mintToken();
  const lookups = jest.spyOn(h.services.tokens, 'findPrincipal');
  try {
    for (let i = 0; i < 3; i++) expect((await whoAmI(token)).status).toBe(200);
    expect(lookups.mock.calls.filter(([hash]) => hash === hashToken(token))).toHaveLength(1);
  } finally {
    lookups.mockRestore();
  }
});

test('a cached token revoked through the API is refused on the very next request', async () => {
  const { id, token } = await mintToken();
  expect((await whoAmI(token)).status).toBe(200);
  expect((await as(h.app, org.ownerToken).delete(`/tokens/${id}`)).status).toBe(200);
  expect((await whoAmI(token)).status).toBe(401);
});

test('a cached token revoked by another process (straight in the database) is refused as soon as the database announces it', async () => {
  const { id, token } = await mintToken();
  expect((await whoAmI(token)).status).toBe(200);
  await sql(`UPDATE access_tokens SET revoked_at = now() WHERE id = $1`, [id]);
  const res = await eventually(
    () => whoAmI(token),
    (r) => r.status !== 200,
    2_000,
  );
  expect(res.status).toBe(401);
});

test("a member's role change and removal take effect on the next request", async () => {
  const developer = org.tokens.developer;
  const [{ user_id: memberId }] = await sql(`SELECT user_id FROM access_tokens WHERE token_hash = $1`, [hashToken(developer)]);
  expect(
    (
      await as(h.app, developer)
        .post('/environments')
        .send({ name: `env-${Date.now()}`, variables: {} })
    ).status,
  ).toBe(201);

  expect((await as(h.app, org.ownerToken).patch(`/organization/members/${memberId}`).send({ role: 'viewer' })).status).toBe(200);
  expect(
    (
      await as(h.app, developer)
        .post('/environments')
        .send({ name: `env-${Date.now()}`, variables: {} })
    ).status,
  ).toBe(403);

  expect((await as(h.app, org.ownerToken).delete(`/organization/members/${memberId}`)).status).toBe(200);
  expect((await whoAmI(developer)).status).toBe(401);
});

test("a token's expiry is respected while it is cached", async () => {
  // Expiry is time passing, which nothing announces. The cache's clock (Date.now) is moved past the token's expiry; the database's,
  // which cannot be moved, is stood for by moving the stored expiry into the past with the announcing trigger off.
  const res = await as(h.app, org.ownerToken)
    .post('/tokens')
    .send({ name: `t-${Date.now()}`, expiresInDays: 1 });
  expect(res.status).toBe(201);
  const { id, token } = res.body as { id: string; token: string };
  const expiresAt = Date.parse(res.body.expiresAt);
  const clock = jest.spyOn(Date, 'now');
  const lookups = jest.spyOn(h.services.tokens, 'findPrincipal');
  try {
    // Cached ten seconds before its expiry (by the cache's clock): well within the cache's own time to live.
    clock.mockReturnValue(expiresAt - 10_000);
    expect((await whoAmI(token)).status).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(1);
    lookups.mockClear();
    await sql(`ALTER TABLE access_tokens DISABLE TRIGGER access_tokens_auth_changed`);
    await sql(`UPDATE access_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);
    // A moment before its expiry, the cached token is still answered from memory.
    clock.mockReturnValue(expiresAt - 1);
    expect((await whoAmI(token)).status).toBe(200);
    expect(lookups).not.toHaveBeenCalled();
    // At its expiry it is refused, although nothing told the cache.
    clock.mockReturnValue(expiresAt);
    expect((await whoAmI(token)).status).toBe(401);
  } finally {
    clock.mockRestore();
    lookups.mockRestore();
    await sql(`ALTER TABLE access_tokens ENABLE TRIGGER access_tokens_auth_changed`);
  }
});

test('with its listener lost, the cache answers nothing from memory until it listens again', async () => {
  const { id, token } = await mintToken();
  // Only the cache's own safeguard is left: this revocation will not be announced.
  await sql(`ALTER TABLE access_tokens DISABLE TRIGGER access_tokens_auth_changed`);
  try {
    expect((await whoAmI(token)).status).toBe(200);
    await sql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'flowbase-listen-auth_changed' AND datname = current_database()`,
    );
    await eventually(
      async () => h.services.principalCache.isListening,
      (listening) => !listening,
      5_000,
    );
    await sql(`UPDATE access_tokens SET revoked_at = now() WHERE id = $1`, [id]);
    expect((await whoAmI(token)).status).toBe(401);
    // It listens again by itself, and starts empty.
    await eventually(
      async () => h.services.principalCache.isListening,
      (listening) => listening,
      10_000,
    );
    expect((await whoAmI(token)).status).toBe(401);
  } finally {
    await sql(`ALTER TABLE access_tokens ENABLE TRIGGER access_tokens_auth_changed`);
  }
});

test("a token's use (touch) announces nothing; revoking it, changing its expiry or a membership does", async () => {
  const { id } = await mintToken();
  const listener = new Client({ connectionString: (h.services.db.options as PostgresConnectionOptions).url });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (n) => heard.push(n.channel));
  try {
    await listener.query('LISTEN auth_changed; LISTEN test_marker');
    // Notifications arrive in commit order: once the marker sent after `write` is heard, so is anything `write` announced.
    const announcements = async (write: () => Promise<unknown>) => {
      heard.length = 0;
      await write();
      await sql(`SELECT pg_notify('test_marker', '')`);
      await eventually(
        async () => heard.includes('test_marker'),
        (done) => done,
        5_000,
      );
      return heard.filter((c) => c === 'auth_changed').length;
    };
    expect(await announcements(() => h.services.tokens.touch(id))).toBe(0);
    expect(await announcements(() => sql(`UPDATE access_tokens SET expires_at = now() + interval '1 day' WHERE id = $1`, [id]))).toBe(1);
    expect(await announcements(() => sql(`UPDATE memberships SET role = role WHERE organization_id = $1`, [org.organizationId]))).toBe(1);
    expect(await announcements(() => sql(`UPDATE access_tokens SET revoked_at = now() WHERE id = $1`, [id]))).toBe(1);
  } finally {
    await listener.end();
  }
});
