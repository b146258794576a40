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

  test('a definition comes back with its keys in the order written, at every depth, in every version', async () => {
    const org = await createTestOrg(h.services);
    // Out of the schema's order and out of jsonb's (shorter keys first) at each depth: top level, steps, a branch, inputs, a body.
    const first = {
      steps: [
        { input: { values: { zeta: '{{ initial.userId }}', alpha: { yes: true, no: false } } }, stepType: 'core.set', stepId: 'prepare', name: 'Prepare' },
        {
          stepId: 'route',
          name: 'Route',
          stepType: 'core.if',
          input: {
            condition: 'prepare.zeta > 0',
            else: [{ stepType: 'core.return', stepId: 'none', input: { webhookResponse: { statusCode: 204 } } }],
            then: [
              {
                input: { retry: { limit: 1 }, url: 'https://api.example.test/users', method: 'POST', body: { zz: 1, account: { b: 2, a: 1 } } },
                stepId: 'fetch',
                stepType: 'core.http',
              },
            ],
          },
        },
      ],
      description: 'Keys as written',
      initial: { userId: 42, account: 'acme' },
      name: 'key-order',
    };
    const created = await createWorkflow(org, first);
    expect(JSON.stringify(created.definition)).toBe(JSON.stringify(first));

    const { settings, ...second } = {
      name: 'key-order',
      settings: { defaultEnvironment: null },
      initial: { account: 'acme', userId: 7 },
      steps: [{ stepType: 'core.return', input: { webhookResponse: { body: { z: 1, a: 2 }, statusCode: 200 } }, stepId: 'reply' }],
      description: 'Second',
    };
    const updated = await as(h.app, org.ownerToken)
      .put(`/workflows/${created.id}`)
      .send({ ...second, settings });
    expect(updated.status).toBe(200);
    expect(JSON.stringify(updated.body.definition)).toBe(JSON.stringify(second));

    const read = (path: string) => as(h.app, org.tokens.viewer).get(`/workflows/${created.id}${path}`);
    expect(JSON.stringify((await read('')).body.definition)).toBe(JSON.stringify(second));
    expect(JSON.stringify((await read('/versions/1')).body.definition)).toBe(JSON.stringify(first));
    expect(JSON.stringify((await read('/versions/2')).body.definition)).toBe(JSON.stringify(second));
    expect((await read('/versions')).body.data.map((v: { definition: object }) => JSON.stringify(v.definition))).toEqual([
      JSON.stringify(second),
      JSON.stringify(first),
    ]);

    // Unknown keys are refused as before, wherever they are.
    const unknown = await as(h.app, org.ownerToken)
      .put(`/workflows/${created.id}`)
      .send({ ...second, steps: [{ ...second.steps[0], input: { ...second.steps[0].input, extra: 1 } }] });
    expectError(unknown, 400, 'validation_failed');
    expect(unknown.body.error.details).toEqual([expect.objectContaining({ path: 'steps.0.input.extra' })]);
  });

  test('defaults the service fills in are kept, after the keys written', async () => {
    const org = await createTestOrg(h.services);
    const created = await createWorkflow(org, {
      steps: [{ input: { url: 'https://api.example.test/users' }, stepType: 'core.http', stepId: 'fetch' }],
      name: 'defaulted',
    });
    expect(JSON.stringify(created.definition)).toBe(
      JSON.stringify({
        steps: [{ input: { url: 'https://api.example.test/users', method: 'GET' }, stepType: 'core.http', stepId: 'fetch' }],
        name: 'defaulted',
        initial: {},
      }),
    );
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
