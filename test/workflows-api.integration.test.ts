import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The definition of interface.md 2.1, as a user would paste it. */
const definition = (name: string, extra: object = {}) => ({
  name,
  initial: { userId: 42 },
  steps: [
    {
      stepId: 'fetch',
      stepType: 'core.http',
      input: { url: 'https://api.example.test/users/{{ initial.userId }}', method: 'GET', searchParams: { full: 'true' }, retry: { limit: 2 } },
    },
    { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { name: '{{ fetch.body.name }}' } } } },
  ],
  ...extra,
});

const createWorkflow = async (org: TestOrg, body: object) => {
  const res = await as(h.app, org.ownerToken).post('/workflows').send(body);
  expect(res.status).toBe(201);
  return res.body;
};

describe('workflow definitions', () => {
  test('a pasted definition is stored as version 1 and read back as is', async () => {
    const org = await createTestOrg(h.services);
    const body = definition('lookup-user');
    const created = await createWorkflow(org, body);
    expect(created).toMatchObject({
      name: 'lookup-user',
      version: 1,
      organizationId: org.organizationId,
      settings: { defaultEnvironmentId: null, defaultEnvironment: null },
    });
    expect(created.definition.steps).toEqual([{ ...body.steps[0], input: { ...body.steps[0].input } }, body.steps[1]]);
    expect((await as(h.app, org.tokens.viewer).get(`/workflows/${created.id}`)).body).toEqual(created);
    expect((await as(h.app, org.tokens.viewer).get('/workflows')).body).toEqual({ total: 1, data: [created] });
  });

  test('validation names the exact step and field at fault, and nothing is stored', async () => {
    const org = await createTestOrg(h.services);
    const cases: Array<[object, string, string]> = [
      [{ name: 'w', steps: [{ stepId: 'a', stepType: 'core.teleport', input: {} }] }, 'steps.0.stepType', 'validation_failed'],
      [
        { name: 'w', steps: [{ stepId: 'a-b', stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }] },
        'steps.0.stepId',
        'validation_failed',
      ],
      [{ name: 'w', steps: [{ stepId: 'a', stepType: 'core.http', input: { url: '{{ initial.x ' } }] }, 'steps.0.input.url', 'invalid_definition'],
      [
        {
          name: 'w',
          steps: [
            { stepId: 'a', stepType: 'core.http', input: { url: '{{ b.body }}' } },
            { stepId: 'b', stepType: 'core.http', input: { url: 'x' } },
          ],
        },
        'steps.0.input.url',
        'invalid_definition',
      ],
      [
        {
          name: 'w',
          steps: [
            { stepId: 'a', stepType: 'core.http', input: { url: 'x' } },
            { stepId: 'a', stepType: 'core.http', input: { url: 'y' } },
          ],
        },
        'steps.1.stepId',
        'invalid_definition',
      ],
      [{ name: 'has space', steps: [] }, 'name', 'validation_failed'],
    ];
    for (const [body, path, code] of cases) {
      const res = await as(h.app, org.ownerToken).post('/workflows').send(body);
      expectError(res, 400, code);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect((await as(h.app, org.ownerToken).get('/workflows')).body.total).toBe(0);
  });

  test('each update is a new version; older versions stay readable', async () => {
    const org = await createTestOrg(h.services);
    const created = await createWorkflow(org, definition('versioned'));
    const changed = definition('versioned', { initial: { userId: 7 } });
    const updated = await as(h.app, org.ownerToken).put(`/workflows/${created.id}`).send(changed);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, definition: { initial: { userId: 7 } } });
    const versions = await as(h.app, org.tokens.viewer).get(`/workflows/${created.id}/versions`);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await as(h.app, org.tokens.viewer).get(`/workflows/${created.id}/versions/1`)).body.definition.initial).toEqual({ userId: 42 });
    expectError(await as(h.app, org.tokens.viewer).get(`/workflows/${created.id}/versions/3`), 404, 'not_found');
  });

  test('names are unique per organization (400 duplicate_name); another organization may reuse one', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    await createWorkflow(org, definition('same'));
    expectError(await as(h.app, org.ownerToken).post('/workflows').send(definition('same')), 400, 'duplicate_name');
    await createWorkflow(other, definition('same'));
  });

  test('the default environment is set by name, cleared with null, and unknown names are refused', async () => {
    const org = await createTestOrg(h.services);
    const env = await as(h.app, org.ownerToken).post('/environments').send({ name: 'production' });
    const created = await createWorkflow(org, definition('with-env', { settings: { defaultEnvironment: 'production' } }));
    expect(created.settings).toEqual({ defaultEnvironmentId: env.body.id, defaultEnvironment: 'production' });
    expectError(await as(h.app, org.ownerToken).patch(`/workflows/${created.id}/settings`).send({ defaultEnvironment: 'nope' }), 400, 'unknown_environment');
    const cleared = await as(h.app, org.ownerToken).patch(`/workflows/${created.id}/settings`).send({ defaultEnvironment: null });
    expect(cleared.body).toMatchObject({ version: 1, settings: { defaultEnvironmentId: null } });
  });

  test('viewers read, developers write; another organization gets 404', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const created = await createWorkflow(org, definition('guarded'));
    expectError(await as(h.app, org.tokens.viewer).post('/workflows').send(definition('nope')), 403, 'missing_permission');
    expectError(await as(h.app, org.tokens.analyst).put(`/workflows/${created.id}`).send(definition('guarded')), 403, 'missing_permission');
    expect((await as(h.app, org.tokens.developer).put(`/workflows/${created.id}`).send(definition('guarded'))).status).toBe(200);
    for (const res of [
      await as(h.app, other.ownerToken).get(`/workflows/${created.id}`),
      await as(h.app, other.ownerToken).put(`/workflows/${created.id}`).send(definition('guarded')),
      await as(h.app, other.ownerToken).delete(`/workflows/${created.id}`),
      await as(h.app, other.ownerToken).get(`/workflows/${created.id}/versions`),
    ]) {
      expectError(res, 404, 'not_found');
    }
    expect((await as(h.app, org.ownerToken).delete(`/workflows/${created.id}`)).status).toBe(200);
    expectError(await as(h.app, org.ownerToken).get(`/workflows/${created.id}`), 404, 'not_found');
  });
});
