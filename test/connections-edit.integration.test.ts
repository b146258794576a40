import type { Express } from 'express';
import { createApp } from '../src/app/app';
import { createLogger } from '../src/logging/logger';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { as, connectionConfig, createConnection, expectError, expectStatus, type Harness, startHarness } from './harness';

/**
 * Editing a connection without its secrets (issue 40): GET
 * /connections/{id}/config/redacted answers what an edit form may show, and
 * PATCH with keepSecrets keeps each write-only field the edit leaves out. No
 * secret is ever answered or logged on the way.
 */

let h: Harness;
let app: Express;
let org: TestOrg;
let other: TestOrg;
const logs: string[] = [];
const secrets: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  // The app logging at trace level into memory: a secret must not appear in any line.
  app = createApp({ ...h.services, logger: createLogger('trace', { write: (line: string) => void logs.push(line) }) });
  org = await createTestOrg(h.services);
  other = await createTestOrg(h.services);
});
afterAll(() => h?.close());

const secret = (label: string) => {
  const value = `${label}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  secrets.push(value);
  return value;
};
const owner = () => as(app, org.ownerToken);
const redacted = (id: string, token = org.ownerToken) => as(app, token).get(`/connections/${id}/config/redacted`);
const edit = (id: string, body: Record<string, unknown>, token = org.ownerToken) =>
  as(app, token)
    .patch(`/connections/${id}`)
    .send({ keepSecrets: true, ...body });

function expectNoSecretIn(text: string) {
  for (const s of secrets) expect({ secret: s, found: text.includes(s) }).toEqual({ secret: s, found: false });
}

test('the redacted config answers the non-secret fields and which secrets are set, never a secret', async () => {
  const apiKey = secret('sk');
  const c = await createConnection(app, org, { name: uniqueName('billing'), type: 'api-key', config: { apiKey, headerName: 'X-Api-Key' } });
  const res = await redacted(c.id);
  expectStatus(res, 200);
  expect(res.body).toEqual({ type: 'api-key', variant: null, values: { headerName: 'X-Api-Key', prefix: 'Bearer' }, secretsSet: ['apiKey'] });
  expect(res.headers['cache-control']).toBe('no-store');
  expectNoSecretIn(res.text);

  // A variant type names its variant; custom's values are all secrets.
  const form = await createConnection(app, org, {
    name: uniqueName('portal'),
    type: 'form-auth',
    config: { variant: 'password', loginUrl: 'https://portal.example.test/login', username: 'ines', password: secret('pw') },
  });
  expect((await redacted(form.id)).body).toEqual({
    type: 'form-auth',
    variant: 'password',
    values: { variant: 'password', loginUrl: 'https://portal.example.test/login', username: 'ines', usernameField: 'username', passwordField: 'password' },
    secretsSet: ['password'],
  });
  const custom = await createConnection(app, org, { name: uniqueName('vault'), type: 'custom', config: { token: secret('tok'), region: 'eu' } });
  expect((await redacted(custom.id)).body).toEqual({ type: 'custom', variant: null, values: {}, secretsSet: ['token', 'region'] });
});

test('an edit that leaves a secret out keeps it, renames in the same request, and a given secret replaces it', async () => {
  const apiKey = secret('sk');
  const c = await createConnection(app, org, { name: uniqueName('crm'), type: 'api-key', config: { apiKey, headerName: 'X-Api-Key', prefix: 'Token' } });
  const renamed = uniqueName('crm_v2');
  const res = await edit(c.id, { name: renamed, config: { headerName: 'Authorization' } });
  expectStatus(res, 200);
  expect(res.body.name).toBe(renamed);
  expectNoSecretIn(res.text);
  // prefix was left out and is not a secret: replaced like any config field (its default again).
  expect(await connectionConfig(app, org, c.id)).toEqual({ apiKey, headerName: 'Authorization', prefix: 'Bearer' });

  const newKey = secret('sk2');
  expectStatus(await edit(c.id, { config: { apiKey: newKey, headerName: 'Authorization' } }), 200);
  expect(await connectionConfig(app, org, c.id)).toEqual({ apiKey: newKey, headerName: 'Authorization', prefix: 'Bearer' });
});

test('a refused edit changes nothing, and names the field', async () => {
  const apiKey = secret('sk');
  const name = uniqueName('erp');
  const c = await createConnection(app, org, { name, type: 'api-key', config: { apiKey } });
  const before = (await owner().get(`/connections/${c.id}`)).body;
  const res = await edit(c.id, { name: uniqueName('erp_renamed'), config: { headerName: '', unknownField: 'x' } });
  expectError(res, 400, 'config_mismatch');
  expect(res.body.error.details).toEqual(
    expect.arrayContaining([expect.objectContaining({ path: 'config.headerName' }), { path: 'config.unknownField', message: 'Unknown field' }]),
  );
  expect((await owner().get(`/connections/${c.id}`)).body).toEqual(before);
  expect(await connectionConfig(app, org, c.id)).toEqual({ apiKey, headerName: 'Authorization', prefix: 'Bearer' });

  // keepSecrets needs a config; without keepSecrets a config still replaces the whole config (interface.md 4.2).
  expectError(await owner().patch(`/connections/${c.id}`).send({ keepSecrets: true, name: 'x' }), 400);
  const replaced = await owner()
    .patch(`/connections/${c.id}`)
    .send({ config: { headerName: 'X-Key' } });
  expectError(replaced, 400, 'config_mismatch');
  expect(replaced.body.error.details).toEqual([{ path: 'config.apiKey', message: 'is required' }]);
});

test('null removes an optional secret; a required one cannot go; a variant switch keeps no secret', async () => {
  const password = secret('pw');
  const passphrase = secret('pp');
  const key = secret('pk');
  const sftp = await createConnection(app, org, {
    name: uniqueName('files'),
    type: 'sftp',
    config: { host: 'sftp.example.test', username: 'ops', password, privateKey: key, passphrase },
  });
  expectStatus(await edit(sftp.id, { config: { host: 'files.example.test', username: 'ops', passphrase: null } }), 200);
  expect(await connectionConfig(app, org, sftp.id)).toEqual({ host: 'files.example.test', port: 22, username: 'ops', password, privateKey: key });

  const basic = await createConnection(app, org, { name: uniqueName('basic'), type: 'basic-auth', config: { username: 'u', password: secret('pw') } });
  const refused = await edit(basic.id, { config: { username: 'u', password: null } });
  expectError(refused, 400, 'config_mismatch');
  expect(refused.body.error.details).toEqual([{ path: 'config.password', message: 'is required' }]);

  const form = await createConnection(app, org, {
    name: uniqueName('portal'),
    type: 'form-auth',
    config: { variant: 'password', loginUrl: 'https://portal.example.test/login', username: 'ines', password: secret('pw') },
  });
  const switched = await edit(form.id, { config: { variant: 'token', loginUrl: 'https://portal.example.test/token' } });
  expectError(switched, 400, 'config_mismatch');
  expect(switched.body.error.details).toEqual(expect.arrayContaining([{ path: 'config.token', message: 'is required' }]));
  const token = secret('tok');
  expectStatus(await edit(form.id, { config: { variant: 'token', loginUrl: 'https://portal.example.test/token', token } }), 200);
  expect(await connectionConfig(app, org, form.id)).toEqual({ variant: 'token', loginUrl: 'https://portal.example.test/token', token, tokenField: 'token' });

  // custom: every value is a secret, kept when left out, removed with null, added when given.
  const region = secret('region');
  const custom = await createConnection(app, org, { name: uniqueName('vault'), type: 'custom', config: { token, region, old: secret('old') } });
  const added = secret('new');
  expectStatus(await edit(custom.id, { config: { old: null, extra: added } }), 200);
  expect(await connectionConfig(app, org, custom.id)).toEqual({ token, region, extra: added });
});

test('a __proto__ key in an edited config is a field like any other (refused as unknown), never a prototype', async () => {
  const apiKey = secret('sk');
  const c = await createConnection(app, org, { name: uniqueName('proto'), type: 'api-key', config: { apiKey } });
  const res = await owner()
    .patch(`/connections/${c.id}`)
    .set('Content-Type', 'application/json')
    .send('{"keepSecrets": true, "config": {"headerName": "X", "__proto__": {"apiKey": "injected"}}}');
  expectError(res, 400, 'config_mismatch');
  expect(res.body.error.details).toEqual([{ path: 'config.__proto__', message: 'Unknown field' }]);
  expect(await connectionConfig(app, org, c.id)).toEqual({ apiKey, headerName: 'Authorization', prefix: 'Bearer' });
});

test('only secrets:admin edits, secrets:view reads the redacted config, another organization sees nothing', async () => {
  const c = await createConnection(app, org, { name: uniqueName('scoped'), type: 'api-key', config: { apiKey: secret('sk') } });
  expectStatus(await redacted(c.id, org.tokens.developer), 200);
  expectError(await redacted(c.id, org.tokens.analyst), 403);
  expectError(await edit(c.id, { config: { headerName: 'X' } }, org.tokens.analyst), 403);
  expectStatus(await edit(c.id, { config: { headerName: 'X' } }, org.tokens.developer), 200);

  expectError(await redacted(c.id, other.ownerToken), 404);
  const foreign = await edit(c.id, { name: uniqueName('taken'), config: { headerName: 'Y' } }, other.ownerToken);
  expectError(foreign, 404);
  expect(await connectionConfig(app, org, c.id)).toMatchObject({ headerName: 'X' });
});

test('no secret was logged by any of these requests', () => {
  expect(logs.length).toBeGreaterThan(0);
  expectNoSecretIn(logs.join('\n'));
});
