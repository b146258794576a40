import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { as, type Harness, startHarness } from './harness';

const root = path.resolve(__dirname, '..');
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Runs the documented bootstrap command exactly as a script would. */
function admin(args: string[]) {
  return spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, encoding: 'utf8', env: process.env, timeout: 60_000 });
}

test('create-org prints one JSON object whose token works', async () => {
  const email = `Boot-${Date.now()}@Example.test`;
  const run = admin(['create-org', '--name', 'Bootstrap Inc', '--email', email, '--plan', 'business']);
  expect(run.status).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const out = JSON.parse(lines[0]);
  expect(Object.keys(out).sort()).toEqual(['organizationId', 'organizationSuid', 'token', 'userId']);

  const res = await as(h.app, out.token).get('/organization');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id: out.organizationId, suid: out.organizationSuid, name: 'Bootstrap Inc', plan: 'business', role: 'owner' });
  const [user] = await h.services.db.query('SELECT email FROM users WHERE id = $1', [out.userId]);
  expect(user.email).toBe(email.toLowerCase());
  const [key] = await h.services.db.query('SELECT count(*)::int AS n FROM organization_keys WHERE organization_id = $1', [out.organizationId]);
  expect(key.n).toBe(1);
});

test('bad arguments: exit 2, a message naming them, nothing on stdout, nothing written', async () => {
  const name = `Refused ${Date.now()}`;
  const run = admin(['create-org', '--name', name, '--email', 'not-an-email', '--plan', 'gold']);
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/--email/);
  expect(run.stderr).toMatch(/usage:/);
  expect((await h.services.db.query('SELECT count(*)::int AS n FROM organizations WHERE name = $1', [name]))[0].n).toBe(0);
  expect(admin(['no-such-command']).status).toBe(2);
});

test('create-token issues a personal token to an existing member, by organization id or suid; unknown ones fail', async () => {
  const email = `lost-${Date.now()}@example.test`;
  const org = JSON.parse(admin(['create-org', '--name', 'Lost Token Inc', '--email', email]).stdout);
  for (const ref of [org.organizationId, org.organizationSuid]) {
    const run = admin(['create-token', '--org', ref, '--email', email.toUpperCase(), '--name', 'recovered']);
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toEqual({ organizationId: org.organizationId, userId: org.userId, token: expect.stringMatching(/^fbt_/) });
    const me = await as(h.app, out.token).get('/tokens');
    expect(me.body.data.find((t: { name: string }) => t.name === 'recovered')).toMatchObject({ kind: 'personal' });
  }
  const stranger = admin(['create-token', '--org', org.organizationId, '--email', 'nobody@example.test']);
  expect(stranger.status).toBe(1);
  expect(stranger.stdout).toBe('');
  expect(stranger.stderr).toMatch(/Member not found/);
  expect(admin(['create-token', '--org', 'nosuchsuid00', '--email', email]).stderr).toMatch(/Organization not found/);
  expect(admin(['create-token', '--email', email]).status).toBe(2);
});

test('set-plan moves an organization to a plan, which decides whether it may share tables', async () => {
  const org = JSON.parse(admin(['create-org', '--name', 'Growing Inc', '--email', `grow-${Date.now()}@example.test`, '--plan', 'free']).stdout);
  const to = JSON.parse(admin(['create-org', '--name', 'Partner Inc', '--email', `partner-${Date.now()}@example.test`]).stdout);
  expect(
    (
      await as(h.app, org.token)
        .post(`/data-stores/tables/orders`)
        .send({ key: 'k', value: { n: 1 } })
    ).status,
  ).toBe(201);
  const shareBody = { tableName: 'orders', sharedToOrganizationSuid: to.organizationSuid };
  expect((await as(h.app, org.token).post('/dashboards/shares').send(shareBody)).body.error.code).toBe('plan_lacks_sharing');

  const run = admin(['set-plan', '--org', org.organizationSuid, '--plan', 'business']);
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({
    organizationId: org.organizationId,
    plan: 'business',
    previousPlan: 'free',
    dataStoreSharing: true,
    revokedShares: 0,
  });
  expect((await as(h.app, org.token).get('/organization')).body.plan).toBe('business');
  expect((await as(h.app, org.token).post('/dashboards/shares').send(shareBody)).status).toBe(201);
  expect((await as(h.app, to.token).get('/dashboards/shares/received')).body).toHaveLength(1);

  // A plan without sharing takes the shares back: the recipient loses access at once.
  const down = admin(['set-plan', '--org', org.organizationId, '--plan', 'team']);
  expect(down.status).toBe(0);
  expect(JSON.parse(down.stdout)).toMatchObject({ plan: 'team', previousPlan: 'business', dataStoreSharing: false, revokedShares: 1 });
  expect((await as(h.app, org.token).get('/dashboards/shares/granted')).body).toEqual([]);
  expect((await as(h.app, to.token).get('/dashboards/shares/received')).body).toEqual([]);

  const bad = admin(['set-plan', '--org', org.organizationId, '--plan', 'gold']);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/--plan must be one of free, team, business, enterprise/);
  expect(admin(['set-plan', '--org', 'nosuchsuid00', '--plan', 'team']).stderr).toMatch(/Organization not found/);
});
