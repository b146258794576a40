import request from 'supertest';
import { MAX_SESSIONS_PER_TOKEN } from '../src/auth/console-sessions.repository';
import { csrfTokenFor, SESSION_COOKIE } from '../src/auth/session-cookie';
import { SESSION_LIFETIME_MS } from '../src/auth/sessions.service';
import { createTestOrg, type TestOrg } from './factories';
import { as, expectError, startHarness, type Harness } from './harness';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = await startHarness({ configure: (c) => (c.http.publicBaseUrl = 'https://flowbase.example.test') });
  org = await createTestOrg(h.services);
});
afterAll(() => h?.close());

/** Signs in with `token` and answers the cookie's value and the session body. */
async function signIn(token: string) {
  const res = await request(h.app).post('/session').send({ token });
  expect(res.status).toBe(201);
  const header = [res.headers['set-cookie']].flat()[0] as string;
  const secret = /^flowbase_session=([^;]+)/.exec(header)![1];
  return { res, header, secret, cookie: `${SESSION_COOKIE}=${secret}` };
}

test('the cookie is HttpOnly, SameSite=Strict, Secure behind an https public URL, and the answer holds no token', async () => {
  const { res, header, secret } = await signIn(org.tokens.developer);
  expect(header).toMatch(/HttpOnly/);
  expect(header).toMatch(/SameSite=Strict/);
  expect(header).toMatch(/Secure/);
  expect(header).toMatch(/Path=\//);
  expect(res.body).toEqual({
    csrfToken: csrfTokenFor(secret),
    expiresAt: expect.any(String),
    user: { id: expect.any(String), email: expect.stringMatching(/^developer-/), name: null },
    organization: { id: org.organizationId, suid: org.organizationSuid, name: expect.any(String) },
    role: 'developer',
    permissions: expect.arrayContaining(['workflows:admin', 'secrets:view']),
  });
  expect(JSON.stringify(res.body)).not.toContain(org.tokens.developer);
  const lifetime = new Date(res.body.expiresAt).getTime() - Date.now();
  expect(lifetime).toBeGreaterThan(SESSION_LIFETIME_MS - 60_000);
  expect(lifetime).toBeLessThanOrEqual(SESSION_LIFETIME_MS);
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
  await h.services.db.query(`UPDATE access_tokens SET expires_at = now() + interval '1 hour' WHERE id = $1`, [minted.body.id]);
  const second = await signIn(minted.body.token);
  expect(new Date(second.res.body.expiresAt).getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
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
  expect([out.headers['set-cookie']].flat()[0]).toMatch(/flowbase_session=;.*Expires=Thu, 01 Jan 1970/);
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
