import { execFile } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { isUsageFailure, runAdminCommand } from '../src/cli/admin-commands';
import { as, type Harness, startHarness } from './harness';

const root = path.resolve(__dirname, '..');
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Runs the documented bootstrap command exactly as a script would. */
async function admin(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env: process.env, timeout: 60_000 });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: unknown; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw err;
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * The same commands in this process, for what each command does; what the process adds (one JSON line on stdout,
 * exit 0, 1 or 2, the usage on stderr) is the first test's, through `npm run admin`. Logs are dropped.
 */
const command = (args: string[]) => runAdminCommand(args, new Writable({ write: (_chunk, _encoding, done) => done() })) as Promise<any>;

/** A command's refusal: whether it is the caller's mistake (exit 2 with the usage) and its message. */
async function refusal(args: string[]): Promise<{ usage: boolean; message: string }> {
  const err = await command(args).then(
    (result) => new Error(`the command succeeded: ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  return { usage: isUsageFailure(err), message: err instanceof Error ? err.message : String(err) };
}

test('the process: one JSON line whose token works and exit 0; a usage and exit 2 for bad arguments; exit 1 for a failure; nothing on stdout but the result', async () => {
  const email = `Boot-${Date.now()}@Example.test`;
  const refused = `Refused ${Date.now()}`;
  const [run, bad, failed] = await Promise.all([
    admin(['create-org', '--name', 'Bootstrap Inc', '--email', email, '--plan', 'business']),
    admin(['create-org', '--name', refused, '--email', 'not-an-email', '--plan', 'gold']),
    admin(['create-token', '--org', 'nosuchsuid00', '--email', email]),
  ]);
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

  expect(bad).toMatchObject({ status: 2, stdout: '' });
  expect(bad.stderr).toMatch(/--email/);
  expect(bad.stderr).toMatch(/usage:/);
  expect((await h.services.db.query('SELECT count(*)::int AS n FROM organizations WHERE name = $1', [refused]))[0].n).toBe(0);

  expect(failed).toMatchObject({ status: 1, stdout: '' });
  expect(failed.stderr).toMatch(/^admin command failed: Organization not found/);
  expect(failed.stderr).not.toMatch(/usage:/);
});

test('bad arguments are refused as the caller’s mistake, naming them, before anything is written', async () => {
  const name = `Refused ${Date.now()}`;
  const refused = await refusal(['create-org', '--name', name, '--email', 'not-an-email', '--plan', 'gold']);
  expect(refused).toMatchObject({ usage: true, message: expect.stringMatching(/--email/) });
  expect((await h.services.db.query('SELECT count(*)::int AS n FROM organizations WHERE name = $1', [name]))[0].n).toBe(0);
  expect(await refusal(['create-org', '--email', 'someone@example.test'])).toEqual({ usage: true, message: '--name is required' });
  expect(await refusal(['no-such-command'])).toEqual({ usage: true, message: 'Unknown command "no-such-command"' });
  expect(await refusal([])).toEqual({ usage: true, message: 'No command given' });
  expect(await refusal(['create-org', '--name', name, '--colour', 'red'])).toMatchObject({ usage: true, message: expect.stringMatching(/--colour/) });
});

test('create-token issues a personal token to an existing member, by organization id or suid; unknown ones fail', async () => {
  const email = `lost-${Date.now()}@example.test`;
  const org = await command(['create-org', '--name', 'Lost Token Inc', '--email', email]);
  for (const ref of [org.organizationId, org.organizationSuid]) {
    const out = await command(['create-token', '--org', ref, '--email', email.toUpperCase(), '--name', 'recovered']);
    expect(out).toEqual({ organizationId: org.organizationId, userId: org.userId, token: expect.stringMatching(/^fbt_/) });
    const me = await as(h.app, out.token).get('/tokens');
    expect(me.body.data.find((t: { name: string }) => t.name === 'recovered')).toMatchObject({ kind: 'personal' });
  }
  expect(await refusal(['create-token', '--org', org.organizationId, '--email', 'nobody@example.test'])).toMatchObject({
    usage: false,
    message: expect.stringMatching(/Member not found/),
  });
  expect(await refusal(['create-token', '--org', 'nosuchsuid00', '--email', email])).toMatchObject({
    usage: false,
    message: expect.stringMatching(/Organization not found/),
  });
  expect(await refusal(['create-token', '--email', email])).toEqual({ usage: true, message: '--org is required' });
});

test('set-plan moves an organization to a plan, which decides whether it may share tables', async () => {
  const org = await command(['create-org', '--name', 'Growing Inc', '--email', `grow-${Date.now()}@example.test`, '--plan', 'free']);
  const to = await command(['create-org', '--name', 'Partner Inc', '--email', `partner-${Date.now()}@example.test`]);
  expect(
    (
      await as(h.app, org.token)
        .post(`/data-stores/tables/orders`)
        .send({ key: 'k', value: { n: 1 } })
    ).status,
  ).toBe(201);
  const shareBody = { tableName: 'orders', sharedToOrganizationSuid: to.organizationSuid };
  expect((await as(h.app, org.token).post('/dashboards/shares').send(shareBody)).body.error.code).toBe('plan_lacks_sharing');

  expect(await command(['set-plan', '--org', org.organizationSuid, '--plan', 'business'])).toEqual({
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
  const down = await command(['set-plan', '--org', org.organizationId, '--plan', 'team']);
  expect(down).toMatchObject({ plan: 'team', previousPlan: 'business', dataStoreSharing: false, revokedShares: 1 });
  expect((await as(h.app, org.token).get('/dashboards/shares/granted')).body).toEqual([]);
  expect((await as(h.app, to.token).get('/dashboards/shares/received')).body).toEqual([]);

  expect(await refusal(['set-plan', '--org', org.organizationId, '--plan', 'gold'])).toEqual({
    usage: true,
    message: '--plan must be one of free, team, business, enterprise',
  });
  expect(await refusal(['set-plan', '--org', 'nosuchsuid00', '--plan', 'team'])).toMatchObject({
    usage: false,
    message: expect.stringMatching(/Organization not found/),
  });
});
