import request from 'supertest';
import { MAX_SESSIONS_PER_TOKEN } from '../src/auth/console-sessions.repository';
import { Client } from 'pg';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { csrfTokenFor, SECURE_SESSION_COOKIE } from '../src/auth/session-cookie';
import { SESSION_LIFETIME_MS } from '../src/auth/sessions.service';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { as, expectError, startHarness, type Harness } from './harness';
import { workflowApi } from './workflow-api';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  // A database of its own: the auth_changed test counts notifications, and other files' sign-ins and revocations would be heard too.
  h = await startHarness({ isolatedDatabase: true, configure: (c) => (c.http.publicBaseUrl = 'https://flowbase.example.test') });
  await h.startWorker();
  org = await createTestOrg(h.services);
});
afterAll(() => h?.close());

/** Signs in with `token` and answers the cookie's value and the session body. */
async function signIn(token: string) {
  const res = await request(h.app).post('/session').send({ token });
  expect(res.status).toBe(201);
  const header = [res.headers['set-cookie']].flat()[0] as string;
  const secret = /^__Host-flowbase_session=([^;]+)/.exec(header)![1];
  return { res, header, secret, cookie: `${SECURE_SESSION_COOKIE}=${secret}` };
}

test('the cookie is __Host-, HttpOnly, SameSite=Strict, Secure behind an https public URL, and the answer holds no token', async () => {
  const { res, header, secret } = await signIn(org.tokens.developer);
  expect(header).toMatch(/HttpOnly/);
  expect(header).toMatch(/SameSite=Strict/);
  expect(header).toMatch(/Secure/);
  expect(header).toMatch(/Path=\//);
  // Beside it, the session's CSRF token in a cookie the page can read (for its first writes, before GET /session answers).
  const csrf = [res.headers['set-cookie']].flat()[1] as string;
  expect(csrf).toMatch(new RegExp(`^__Host-flowbase_csrf=${csrfTokenFor(secret)};`));
  expect(csrf).toMatch(/SameSite=Strict/);
  expect(csrf).toMatch(/Secure/);
  expect(csrf).not.toMatch(/HttpOnly/);
  expect(res.body).toEqual({
    csrfToken: csrfTokenFor(secret),
    expiresAt: expect.any(String),
    user: { id: expect.any(String), email: expect.stringMatching(/^developer-/), name: null },
    organization: { id: org.organizationId, suid: org.organizationSuid, name: expect.any(String) },
    role: 'developer',
    permissions: expect.arrayContaining(['workflows:admin', 'secrets:view']),
  });
  expect(JSON.stringify(res.body)).not.toContain(org.tokens.developer);
  // The lifetime on the database's own clock: expiry minus creation.
  const [row] = await h.services.db.query(
    `SELECT (extract(epoch FROM expires_at - created_at) * 1000)::bigint AS ms, expires_at AS "expiresAt" FROM console_sessions WHERE session_hash = encode(sha256($1::bytea), 'hex')`,
    [secret],
  );
  expect(Number(row.ms)).toBe(SESSION_LIFETIME_MS);
  expect(new Date(res.body.expiresAt)).toEqual(row.expiresAt);
});

test('a bad token is refused, and nothing is set', async () => {
  const res = await request(h.app).post('/session').send({ token: 'fbt_not-a-token' });
  expectError(res, 401, 'unauthorized');
  expect(res.headers['set-cookie']).toBeUndefined();
});

test('a session never outlives its token', async () => {
  const minted = await as(h.app, org.tokens.analyst).post('/tokens').send({ name: 'short', expiresInDays: 1 });
  // One day is longer than a session: the session keeps its own lifetime.
  const { res } = await signIn(minted.body.token);
  expect(new Date(res.body.expiresAt).getTime()).toBeLessThanOrEqual(new Date(minted.body.expiresAt).getTime());
  // An UPDATE answers [rows, count] through TypeORM.
  const [[{ soon }]] = await h.services.db.query(`UPDATE access_tokens SET expires_at = now() + interval '1 hour' WHERE id = $1 RETURNING expires_at AS soon`, [
    minted.body.id,
  ]);
  const second = await signIn(minted.body.token);
  expect(new Date(second.res.body.expiresAt)).toEqual(soon);
});

test('writes with the cookie need the CSRF token; a wrong one is refused; reads do not', async () => {
  const { cookie, secret } = await signIn(org.tokens.developer);
  expect((await request(h.app).get('/workflows').set('Cookie', cookie)).status).toBe(200);
  expectError(await request(h.app).post('/tokens').set('Cookie', cookie).send({ name: 'x' }), 403, 'csrf_failed');
  expectError(await request(h.app).post('/tokens').set('Cookie', cookie).set('X-CSRF-Token', csrfTokenFor('another')).send({ name: 'x' }), 403, 'csrf_failed');
  const ok = await request(h.app).post('/tokens').set('Cookie', cookie).set('X-CSRF-Token', csrfTokenFor(secret)).send({ name: 'via console' });
  expect(ok.status).toBe(201);
});

test('a bearer token wins over a cookie, and DELETE /session is for sessions only', async () => {
  const { cookie } = await signIn(org.tokens.viewer);
  const who = await request(h.app).get('/session').set('Cookie', cookie).set('Authorization', `Bearer ${org.tokens.owner}`);
  expect(who.body).toMatchObject({ role: 'owner', csrfToken: null });
  expectError(await as(h.app, org.tokens.owner).delete('/session'), 400, 'no_session');
});

test('sign-out ends the session at once; a replayed cookie is refused', async () => {
  const { cookie, secret } = await signIn(org.tokens.developer);
  expect((await request(h.app).get('/session').set('Cookie', cookie)).status).toBe(200);
  const out = await request(h.app).delete('/session').set('Cookie', cookie).set('X-CSRF-Token', csrfTokenFor(secret));
  expect(out.status).toBe(200);
  expect([out.headers['set-cookie']].flat()[0]).toMatch(/^__Host-flowbase_session=;.*Expires=Thu, 01 Jan 1970/);
  expectError(await request(h.app).get('/session').set('Cookie', cookie), 401, 'session_ended');
});

test('removing the member ends their sessions on the next request', async () => {
  const member = await createTestOrg(h.services);
  const { cookie } = await signIn(member.tokens.analyst);
  expect((await request(h.app).get('/dashboards').set('Cookie', cookie)).status).toBe(200);
  const members = await as(h.app, member.ownerToken).get('/organization/members');
  const analyst = members.body.data.find((m: any) => m.role === 'analyst');
  expect((await as(h.app, member.ownerToken).delete(`/organization/members/${analyst.userId}`)).status).toBe(200);
  expectError(await request(h.app).get('/dashboards').set('Cookie', cookie), 401, 'session_ended');
});

test(`a token holds at most ${MAX_SESSIONS_PER_TOKEN} live sessions: signing in again ends the oldest`, async () => {
  const minted = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'many browsers' });
  const first = await signIn(minted.body.token);
  for (let i = 0; i < MAX_SESSIONS_PER_TOKEN; i += 1) await signIn(minted.body.token);
  expectError(await request(h.app).get('/session').set('Cookie', first.cookie), 401, 'session_ended');
  const [{ live }] = await h.services.db.query(`SELECT count(*)::int AS live FROM console_sessions WHERE token_id = $1 AND ended_at IS NULL`, [minted.body.id]);
  expect(live).toBe(MAX_SESSIONS_PER_TOKEN);
});

test(`30 concurrent sign-ins with one token leave exactly ${MAX_SESSIONS_PER_TOKEN} live sessions, and none fails`, async () => {
  const minted = await as(h.app, org.tokens.viewer).post('/tokens').send({ name: 'a burst of browsers' });
  // A few bursts: one race lost is enough to break the limit (or deadlock: a 500), but a single burst may not lose one.
  for (let burst = 0; burst < 3; burst += 1) {
    const answers = await Promise.all(Array.from({ length: 30 }, () => request(h.app).post('/session').send({ token: minted.body.token })));
    expect(answers.map((res) => res.status)).toEqual(Array(30).fill(201));
    const [{ live }] = await h.services.db.query(`SELECT count(*)::int AS live FROM console_sessions WHERE token_id = $1 AND ended_at IS NULL`, [
      minted.body.id,
    ]);
    expect(live).toBe(MAX_SESSIONS_PER_TOKEN);
  }
});

test('signing in again from the same browser ends the session it held', async () => {
  const first = await signIn(org.tokens.developer);
  const again = await request(h.app).post('/session').set('Cookie', first.cookie).send({ token: org.tokens.viewer });
  expect(again.status).toBe(201);
  expectError(await request(h.app).get('/session').set('Cookie', first.cookie), 401, 'session_ended');
});

test('a dead session cookie makes a public route anonymous, and is cleared', async () => {
  const { cookie, secret } = await signIn(org.tokens.developer);
  await request(h.app).delete('/session').set('Cookie', cookie).set('X-CSRF-Token', csrfTokenFor(secret)).expect(200);
  const invitation = await as(h.app, org.ownerToken)
    .post('/organization/invitations')
    .send({ email: `${uniqueName('invitee')}@example.test`, role: 'viewer' });
  const accepted = await request(h.app).post('/invitations/accept').set('Cookie', cookie).send({ code: invitation.body.code });
  expect(accepted.status).toBe(201);
  expect(accepted.body.token.token).toMatch(/^fbt_/);
  expect([accepted.headers['set-cookie']].flat()[0]).toMatch(/^__Host-flowbase_session=;.*Expires=Thu, 01 Jan 1970/);
});

test('a sign-in announces nothing to the caches; a sign-out does', async () => {
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
      await h.services.db.query(`SELECT pg_notify('test_marker', '')`);
      await eventually(
        async () => heard.includes('test_marker'),
        (done) => done,
        5_000,
      );
      return heard.filter((c) => c === 'auth_changed').length;
    };
    let session: Awaited<ReturnType<typeof signIn>> | undefined;
    expect(await announcements(async () => (session = await signIn(org.tokens.analyst)))).toBe(0);
    expect(await announcements(() => request(h.app).delete('/session').set('Cookie', session!.cookie).set('X-CSRF-Token', csrfTokenFor(session!.secret)))).toBe(
      1,
    );
  } finally {
    await listener.end();
  }
});

test("a webhook reply, whatever its content type, is sandboxed: it cannot run script on the console's origin", async () => {
  const hook = await workflowApi(h.app, org).createHook(
    [
      {
        stepId: 'reply',
        stepType: 'core.return',
        input: { webhookResponse: { statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<script>fetch("/session")</script>' } },
      },
    ],
    { method: 'GET' },
  );
  const res = await request(h.app).get(hook.path);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
  expect(res.headers['x-content-type-options']).toBe('nosniff');
});
