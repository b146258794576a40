import request from 'supertest';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
let org: TestOrg;
beforeAll(async () => {
  h = await startHarness();
  org = await createTestOrg(h.services);
});
afterAll(() => h.close());

let counter = 0;
const newEmail = () => `preview-${Date.now().toString(36)}-${counter++}@example.test`;

async function invite(role = 'analyst') {
  const email = newEmail();
  const invited = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email, name: 'Ann Invitee', role });
  expect(invited.status).toBe(201);
  return { email, id: invited.body.id as string, code: invited.body.code as string };
}

const preview = (code: string) => request(h.app).post('/invitations/preview').send({ code });

describe('POST /invitations/preview: what an invitation offers, read with its code', () => {
  test('answers the organization, the inviter, the role, the address and the expiry, and nothing more; accepting still works after', async () => {
    const { email, code } = await invite();
    const [inviter, organization] = await Promise.all([as(h.app, org.ownerToken).get('/session'), as(h.app, org.ownerToken).get('/organization')]);
    const res = await preview(code);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      organizationName: organization.body.name,
      invitedBy: { name: inviter.body.user.name, email: inviter.body.user.email },
      role: 'analyst',
      email,
      expiresAt: expect.any(String),
    });
    // Seven days from now, give or take the test's own time.
    expect(Math.abs(Date.parse(res.body.expiresAt) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    // Reading changes nothing: the code still accepts.
    expect((await request(h.app).post('/invitations/accept').send({ code })).status).toBe(201);
  });

  test('an unknown, used, revoked or expired code is one and the same 404', async () => {
    const unknown = await preview('fbi_not-a-code-anyone-was-given');
    expectError(unknown, 404, 'not_found');
    const closed = [unknown.body.error.message];

    const used = await invite();
    expect((await request(h.app).post('/invitations/accept').send({ code: used.code })).status).toBe(201);
    const revoked = await invite();
    expect((await as(h.app, org.ownerToken).delete(`/organization/invitations/${revoked.id}`)).status).toBe(200);
    const expired = await invite();
    await h.services.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    for (const { code } of [used, revoked, expired]) {
      const res = await preview(code);
      expectError(res, 404, 'not_found');
      closed.push(res.body.error.message);
    }
    // Nothing in the answer tells which of these a code is.
    expect(new Set(closed).size).toBe(1);
  });

  test('a replaced invitation: the old code is gone, the new one shows the new role', async () => {
    const first = await invite('viewer');
    const second = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: first.email, role: 'developer' });
    expect(second.status).toBe(201);
    expectError(await preview(first.code), 404, 'not_found');
    expect((await preview(second.body.code)).body.role).toBe('developer');
  });

  test('the input is bounded: an overlong code, a missing one and extra fields are refused', async () => {
    expectError(await preview('x'.repeat(201)), 400);
    expectError(await request(h.app).post('/invitations/preview').send({}), 400);
    const { code } = await invite();
    expectError(await request(h.app).post('/invitations/preview').send({ code, organizationId: org.organizationId }), 400);
  });
});
