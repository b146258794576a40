import request from 'supertest';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';

/**
 * Tokens minted with chosen permissions (issue 40): a token acts with those of
 * its member's current role that its list names, never more than the token
 * that minted it, and a console session of it keeps its scope.
 */

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = await startHarness();
  org = await createTestOrg(h.services);
});
afterAll(() => h?.close());

async function mint(token: string, body: Record<string, unknown>) {
  const res = await as(h.app, token)
    .post('/tokens')
    .send({ name: uniqueName('scoped'), ...body });
  expectStatus(res, 201);
  return res.body as { id: string; token: string; permissions: string[] | null };
}

const writeRecord = (token: string) =>
  as(h.app, token)
    .post('/data-stores')
    .send({ tableName: uniqueName('scope_probe'), key: 'k', value: { n: 1 } });
const readTables = (token: string) => as(h.app, token).get('/data-stores/tables');

async function memberId(o: TestOrg, role: string): Promise<string> {
  const res = await as(h.app, o.ownerToken).get('/organization/members');
  return res.body.data.find((m: { email: string }) => m.email.startsWith(`${role}-`)).userId;
}

test('a token minted with workflows:view reads a data store but cannot write one; its list is shown', async () => {
  expectStatus(await writeRecord(org.tokens.developer), 201);
  const scoped = await mint(org.tokens.developer, { permissions: ['workflows:view'], expiresInDays: 7 });
  expect(scoped.permissions).toEqual(['workflows:view']);

  expectStatus(await readTables(scoped.token), 200);
  expectError(await writeRecord(scoped.token), 403);
  // Nor anything else the role holds but the list does not name.
  expectError(await as(h.app, scoped.token).get('/connections'), 403);

  const organization = await as(h.app, scoped.token).get('/organization');
  expect(organization.body.permissions).toEqual(['workflows:view']);
  const listed = (await as(h.app, org.tokens.developer).get('/tokens')).body.data.find((t: { id: string }) => t.id === scoped.id);
  expect(listed).toMatchObject({ permissions: ['workflows:view'], expiresAt: expect.any(String) });
});

test('a token cannot mint one with a permission it does not hold; left out, a minted token keeps its minter’s list', async () => {
  const scoped = await mint(org.tokens.developer, { permissions: ['workflows:view', 'dashboards:view'] });
  const above = await as(h.app, scoped.token)
    .post('/tokens')
    .send({ name: 'wider', permissions: ['workflows:view', 'workflows:admin'] });
  expectError(above, 400, 'permission_not_held');
  expect(above.body.error.message).toContain('workflows:admin');
  expect(above.body.error.details).toEqual([{ path: 'permissions.1', message: expect.stringContaining('workflows:admin') }]);

  // A member cannot give a token what the role lacks either (a viewer has no workflows:admin).
  expectError(
    await as(h.app, org.tokens.viewer)
      .post('/tokens')
      .send({ name: 'wider', permissions: ['workflows:admin'] }),
    400,
    'permission_not_held',
  );

  const child = await mint(scoped.token, {});
  expect(child.permissions).toEqual(['workflows:view', 'dashboards:view']);
  expectError(await writeRecord(child.token), 403);
  const narrower = await mint(scoped.token, { permissions: ['dashboards:view'] });
  expectError(await readTables(narrower.token), 403);

  // An unscoped token mints unscoped ones, as before.
  expect((await mint(org.tokens.developer, {})).permissions).toBeNull();

  // Unknown or repeated names are refused at their field.
  expectError(
    await as(h.app, org.tokens.developer)
      .post('/tokens')
      .send({ name: 'x', permissions: ['workflows:everything'] }),
    400,
  );
  expectError(
    await as(h.app, org.tokens.developer)
      .post('/tokens')
      .send({ name: 'x', permissions: ['workflows:view', 'workflows:view'] }),
    400,
  );
  expectError(await as(h.app, org.tokens.developer).post('/tokens').send({ name: 'x', permissions: [] }), 400);
});

test('a console session made from a scoped token keeps its scope', async () => {
  const scoped = await mint(org.tokens.developer, { permissions: ['workflows:view'] });
  const signIn = await request(h.app).post('/session').send({ token: scoped.token });
  expectStatus(signIn, 201);
  expect(signIn.body).toMatchObject({ role: 'developer', permissions: ['workflows:view'] });
  const cookies = [signIn.headers['set-cookie']].flat().map((c) => (c as string).split(';')[0]);
  const session = { cookie: cookies.join('; '), csrf: signIn.body.csrfToken as string };

  const who = await request(h.app).get('/session').set('Cookie', session.cookie);
  expect(who.body.permissions).toEqual(['workflows:view']);
  expectStatus(await request(h.app).get('/data-stores/tables').set('Cookie', session.cookie), 200);
  const write = await request(h.app)
    .post('/data-stores')
    .set('Cookie', session.cookie)
    .set('X-CSRF-Token', session.csrf)
    .send({ tableName: uniqueName('scope_probe'), key: 'k', value: { n: 1 } });
  expectError(write, 403);
});

test('a role downgraded later narrows a scoped token, and a role restored does not widen it past its list', async () => {
  const own = await createTestOrg(h.services);
  const developerId = await memberId(own, 'developer');
  const scoped = await mint(own.tokens.developer, { permissions: ['workflows:view', 'workflows:admin'] });
  expectStatus(await writeRecord(scoped.token), 201);

  expectStatus(await as(h.app, own.ownerToken).patch(`/organization/members/${developerId}`).send({ role: 'viewer' }), 200);
  expectError(await writeRecord(scoped.token), 403);
  expectStatus(await readTables(scoped.token), 200);
  expect((await as(h.app, scoped.token).get('/organization')).body.permissions).toEqual(['workflows:view']);

  expectStatus(await as(h.app, own.ownerToken).patch(`/organization/members/${developerId}`).send({ role: 'developer' }), 200);
  expectStatus(await writeRecord(scoped.token), 201);
  expectError(await as(h.app, scoped.token).get('/connections'), 403);
});

test('a member admin mints a scoped delegated token only with permissions its own token holds', async () => {
  const viewerId = await memberId(org, 'viewer');
  const delegated = await as(h.app, org.ownerToken)
    .post(`/organization/members/${viewerId}/tokens`)
    .send({ name: 'read-only', permissions: ['dashboards:view'] });
  expectStatus(delegated, 201);
  expect(delegated.body.permissions).toEqual(['dashboards:view']);
  expectError(await readTables(delegated.body.token), 403);
  const listed = await as(h.app, org.ownerToken).get(`/organization/members/${viewerId}/tokens`);
  expect(listed.body.data.find((t: { id: string }) => t.id === delegated.body.id).permissions).toEqual(['dashboards:view']);

  const ownerScoped = await mint(org.ownerToken, { permissions: ['members:admin', 'workflows:view'] });
  const wider = await as(h.app, ownerScoped.token)
    .post(`/organization/members/${viewerId}/tokens`)
    .send({ name: 'wider', permissions: ['dashboards:view'] });
  expectError(wider, 400, 'permission_not_held');
  // Left out, it takes the minting token's list: the viewer acts with workflows:view only.
  const inherited = await as(h.app, ownerScoped.token).post(`/organization/members/${viewerId}/tokens`).send({ name: 'inherited' });
  expectStatus(inherited, 201);
  expect(inherited.body.permissions).toEqual(['workflows:view', 'members:admin']);
  expectStatus(await readTables(inherited.body.token), 200);
  expectError(await as(h.app, inherited.body.token).get('/dashboards'), 403);
});

test('a token may not change what it cannot read: an …:admin permission needs its …:view', async () => {
  const res = await as(h.app, org.tokens.developer)
    .post('/tokens')
    .send({ name: 'blind', permissions: ['workflows:view', 'secrets:admin'] });
  expectError(res, 400, 'admin_without_view');
  expect(res.body.error.message).toContain('add secrets:view');
  expectStatus(
    await as(h.app, org.tokens.developer)
      .post('/tokens')
      .send({ name: 'sighted', permissions: ['secrets:view', 'secrets:admin'] }),
    201,
  );
});

test('a token with chosen permissions cannot widen itself through a new organization or an invitation, nor revoke its member’s wider tokens', async () => {
  const scoped = await mint(org.tokens.developer, { permissions: ['workflows:view'] });
  expectError(
    await as(h.app, scoped.token)
      .post('/organizations')
      .send({ name: uniqueName('escape') }),
    403,
    'token_scope_too_narrow',
  );

  const other = await createTestOrg(h.services);
  const members = await as(h.app, org.ownerToken).get('/organization/members');
  const email = members.body.data.find((m: { email: string }) => m.email.startsWith('developer-')).email;
  const invited = await as(h.app, other.ownerToken).post('/organization/invitations').send({ email, role: 'viewer' });
  expectStatus(invited, 201);
  expectError(await as(h.app, scoped.token).post('/invitations/accept').send({ code: invited.body.code }), 403, 'token_scope_too_narrow');
  // The invitation is still open: the member's own unscoped token accepts it.
  expectStatus(await as(h.app, org.tokens.developer).post('/invitations/accept').send({ code: invited.body.code }), 201);

  const wide = await mint(org.tokens.developer, {});
  expect(wide.permissions).toBeNull();
  expectError(await as(h.app, scoped.token).delete(`/tokens/${wide.id}`), 403, 'token_scope_too_narrow');
  expectStatus(await as(h.app, wide.token).get('/organization'), 200);
  const child = await mint(scoped.token, {});
  const grandchild = await mint(child.token, {});
  expectStatus(await as(h.app, scoped.token).delete(`/tokens/${grandchild.id}`), 200);
  expectStatus(await as(h.app, scoped.token).delete(`/tokens/${child.id}`), 200);
  expectStatus(await as(h.app, scoped.token).delete(`/tokens/${scoped.id}`), 200);
  expectError(await as(h.app, scoped.token).get('/organization'), 401);
});

test("keeping a departing member's shares takes an owner token that holds shares:admin", async () => {
  const o = await createTestOrg(h.services);
  const scopedOwner = await mint(o.ownerToken, { permissions: ['members:admin'] });
  const viewer = await memberId(o, 'viewer');
  expectError(await as(h.app, scopedOwner.token).delete(`/organization/members/${viewer}?keepShares=true`), 403, 'owner_required');
  expectStatus(await as(h.app, o.ownerToken).delete(`/organization/members/${viewer}?keepShares=true`), 200);
});
