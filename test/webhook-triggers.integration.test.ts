import { triggerSecretMatches } from '../src/webhooks/trigger-secret';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const definition = (name: string) => ({
  name,
  steps: [{ stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { ok: true } } } }],
});

async function workflowOf(org: TestOrg, name = 'hooked') {
  const res = await as(h.app, org.ownerToken).post('/workflows').send(definition(name));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const storedHash = async (id: string) =>
  (await h.services.db.query('SELECT secret_hash FROM webhook_triggers WHERE id = $1', [id]))[0].secret_hash as string | null;

describe('webhook triggers', () => {
  test('without authentication: no secret; the URL names the organization suid and the slug', async () => {
    const org = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    const res = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'new-order' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'new-order', method: 'POST', authentication: false, secretSetAt: null, workflowId });
    expect(res.body.url).toBe(`${h.services.config.http.webhookBaseUrl}/w/@${org.organizationSuid}/new-order`);
    expect(res.body).not.toHaveProperty('secret');
  });

  test('authentication on: the secret is shown once, stored only as a hash, and rotation replaces it', async () => {
    const org = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    const created = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'secured', authentication: true });
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whs_[A-Za-z0-9_-]{43}$/);
    const hash = await storedHash(created.body.id);
    expect(hash).not.toContain(secret);
    expect(triggerSecretMatches(secret, hash)).toBe(true);
    expect(triggerSecretMatches(secret + 'x', hash)).toBe(false);

    const read = await as(h.app, org.ownerToken).get(`/webhook-triggers/${created.body.id}`);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(hash);

    const rotated = await as(h.app, org.ownerToken).post(`/webhook-triggers/${created.body.id}/secret`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.secret).not.toBe(secret);
    expect(triggerSecretMatches(secret, await storedHash(created.body.id))).toBe(false);
    expect(triggerSecretMatches(rotated.body.secret, await storedHash(created.body.id))).toBe(true);
  });

  test('turning authentication on generates a secret; off forgets it; rotating with it off is 400', async () => {
    const org = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    const { body: trigger } = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'toggle', method: 'PUT' });
    expectError(await as(h.app, org.ownerToken).post(`/webhook-triggers/${trigger.id}/secret`), 400, 'authentication_off');
    const on = await as(h.app, org.ownerToken).patch(`/webhook-triggers/${trigger.id}`).send({ authentication: true });
    expect(on.body).toMatchObject({ authentication: true, method: 'PUT', secret: expect.stringMatching(/^whs_/) });
    const again = await as(h.app, org.ownerToken).patch(`/webhook-triggers/${trigger.id}`).send({ authentication: true, name: 'toggled' });
    expect(again.body).not.toHaveProperty('secret');
    expect(again.body.name).toBe('toggled');
    const off = await as(h.app, org.ownerToken).patch(`/webhook-triggers/${trigger.id}`).send({ authentication: false });
    expect(off.body).toMatchObject({ authentication: false, secretSetAt: null });
    expect(await storedHash(trigger.id)).toBeNull();
  });

  test('names are unique per organization; bad names and methods are 400; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'taken' });
    expectError(await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'taken' }), 400, 'duplicate_name');
    expectError(await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'has/slash' }), 400, 'validation_failed');
    expectError(await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'ok', method: 'TRACE' }), 400, 'validation_failed');
    expect((await as(h.app, org.ownerToken).get(`/webhook-triggers?workflowId=${workflowId}`)).body.total).toBe(1);
  });

  test('permissions and isolation: viewers read, only writers change; another organization gets 404', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    expectError(await as(h.app, org.tokens.viewer).post(`/workflows/${workflowId}/triggers`).send({ name: 'x' }), 403, 'missing_permission');
    const { body: trigger } = await as(h.app, org.tokens.developer).post(`/workflows/${workflowId}/triggers`).send({ name: 'mine' });
    expect((await as(h.app, org.tokens.viewer).get('/webhook-triggers')).body.total).toBe(1);
    expectError(await as(h.app, other.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'theirs' }), 404, 'not_found');
    expectError(await as(h.app, other.ownerToken).get(`/webhook-triggers/${trigger.id}`), 404, 'not_found');
    expectError(await as(h.app, other.ownerToken).patch(`/webhook-triggers/${trigger.id}`).send({ authentication: true }), 404, 'not_found');
    expectError(await as(h.app, other.ownerToken).delete(`/webhook-triggers/${trigger.id}`), 404, 'not_found');
    expect((await as(h.app, other.ownerToken).get('/webhook-triggers')).body.total).toBe(0);
    expect((await as(h.app, org.ownerToken).delete(`/webhook-triggers/${trigger.id}`)).status).toBe(200);
  });

  test('deleting the workflow deletes its triggers', async () => {
    const org = await createTestOrg(h.services);
    const workflowId = await workflowOf(org);
    const { body: trigger } = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send({ name: 'goes' });
    await as(h.app, org.ownerToken).delete(`/workflows/${workflowId}`);
    expectError(await as(h.app, org.ownerToken).get(`/webhook-triggers/${trigger.id}`), 404, 'not_found');
  });
});
