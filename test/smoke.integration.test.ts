import request from 'supertest';
import { as, type Harness, startHarness } from './harness';
import { createTestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

test('healthz reports both backends', async () => {
  const res = await request(h.app).get('/healthz');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ok', database: { ok: true }, temporal: { ok: true } });
});

test('a member reads the active organization', async () => {
  const org = await createTestOrg(h.services);
  const res = await as(h.app, org.tokens.viewer).get('/organization');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id: org.organizationId, role: 'viewer' });
});
