import request from 'supertest';
import { ROLE_PERMISSIONS, ROLES, type Role, type Permission } from '../src/auth/roles';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

async function createEnv(org: TestOrg, name: string, variables?: Record<string, string>) {
  const res = await as(h.app, org.ownerToken)
    .post('/environments')
    .send(variables ? { name, variables } : { name });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; variables: Array<{ key: string; updatedAt: string }> };
}

async function valuesOf(org: TestOrg, id: string): Promise<Record<string, string>> {
  const res = await as(h.app, org.ownerToken).get(`/environments/${id}/variables`);
  expect(res.status).toBe(200);
  return res.body.variables;
}

async function rawRows(environmentId: string): Promise<Array<{ key: string; value_encrypted: string }>> {
  return h.services.db.query(`SELECT key, value_encrypted FROM environment_variables WHERE environment_id = $1 ORDER BY key`, [environmentId]);
}

describe('create', () => {
  test('creates an environment with variables; response and reads show keys, never values', async () => {
    const org = await createTestOrg(h.services);
    const secret = 'sup3r-s3cret-value-' + Math.random().toString(36).slice(2);
    const res = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'production', description: 'prod', variables: { API_KEY: secret, OTHER: 'plain-ish-value-xyz' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'production', description: 'prod', organizationId: org.organizationId });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.variables.map((v: { key: string }) => v.key)).toEqual(['API_KEY', 'OTHER']);
    expect(JSON.stringify(res.body)).not.toContain(secret);

    for (const token of [org.ownerToken, org.tokens.viewer]) {
      const got = await as(h.app, token).get(`/environments/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body.variables.map((v: { key: string }) => v.key)).toEqual(['API_KEY', 'OTHER']);
      expect(JSON.stringify(got.body)).not.toContain(secret);
      expect(JSON.stringify(got.body)).not.toContain('plain-ish-value-xyz');

      const list = await as(h.app, token).get('/environments');
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ id: res.body.id, name: 'production' });
      expect(list.body.data[0].variables.map((v: { key: string }) => v.key)).toEqual(['API_KEY', 'OTHER']);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      expect(JSON.stringify(list.body)).not.toContain('plain-ish-value-xyz');
    }

    expect(await valuesOf(org, res.body.id)).toEqual({ API_KEY: secret, OTHER: 'plain-ish-value-xyz' });
  });

  test('creates an environment without variables', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'empty');
    expect(env.variables).toEqual([]);
    expect(await valuesOf(org, env.id)).toEqual({});
  });

  test.each(['_private', 'a', 'Prod-2_x', 'staging_eu-west'])('accepts the name %p', async (name) => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken).post('/environments').send({ name });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
  });

  test.each(['', '1prod', '-prod', 'has space', 'dot.name', 'ünicode', 'slash/name', 'prod!'])('rejects the name %p with a field detail', async (name) => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken).post('/environments').send({ name });
    expectError(res, 400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' })]));
    const list = await as(h.app, org.ownerToken).get('/environments');
    expect(list.body.total).toBe(0);
  });

  test('a key of 255 characters is accepted, 256 is rejected', async () => {
    const org = await createTestOrg(h.services);
    const k255 = 'K' + 'x'.repeat(254);
    const ok = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'keys', variables: { [k255]: 'v' } });
    expect(ok.status).toBe(201);
    expect(ok.body.variables.map((v: { key: string }) => v.key)).toEqual([k255]);
    expect(await valuesOf(org, ok.body.id)).toEqual({ [k255]: 'v' });

    const k256 = 'K' + 'x'.repeat(255);
    const bad = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'keys2', variables: { [k256]: 'v' } });
    expectError(bad, 400);
    expect(bad.body.error.details.some((d: { path: string }) => d.path.startsWith('variables'))).toBe(true);
    // Also through the single-variable and replace endpoints.
    const single = await as(h.app, org.ownerToken).put(`/environments/${ok.body.id}/variables/${k256}`).send({ value: 'v' });
    expectError(single, 400);
    const replace = await as(h.app, org.ownerToken)
      .put(`/environments/${ok.body.id}/variables`)
      .send({ variables: { [k256]: 'v' } });
    expectError(replace, 400);
    expect(await valuesOf(org, ok.body.id)).toEqual({ [k255]: 'v' });
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(1);
  });

  test('a value of 10,000 characters is accepted, 10,001 is rejected', async () => {
    const org = await createTestOrg(h.services);
    const v10k = 'a'.repeat(9_999) + 'z';
    const ok = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'vals', variables: { BIG: v10k } });
    expect(ok.status).toBe(201);
    expect(await valuesOf(org, ok.body.id)).toEqual({ BIG: v10k });

    const v10k1 = 'a'.repeat(10_001);
    const bad = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'vals2', variables: { BIG: v10k1 } });
    expectError(bad, 400);
    expect(bad.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'variables.BIG' })]));
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(1);

    const single = await as(h.app, org.ownerToken).put(`/environments/${ok.body.id}/variables/BIG`).send({ value: v10k1 });
    expectError(single, 400);
    expect(single.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'value' })]));
    const single10k = await as(h.app, org.ownerToken).put(`/environments/${ok.body.id}/variables/OTHER`).send({ value: v10k });
    expect(single10k.status).toBe(200);
    expect(await valuesOf(org, ok.body.id)).toEqual({ BIG: v10k, OTHER: v10k });
  });

  test('a duplicate name gives 400 duplicate_name and creates nothing', async () => {
    const org = await createTestOrg(h.services);
    await createEnv(org, 'dup', { A: '1' });
    const res = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'dup', variables: { B: '2' } });
    expectError(res, 400, 'duplicate_name');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' })]));
    const list = await as(h.app, org.ownerToken).get('/environments');
    expect(list.body.total).toBe(1);
    expect(list.body.data[0].variables.map((v: { key: string }) => v.key)).toEqual(['A']);
  });

  test('the same name in another organization is fine', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await createEnv(a, 'shared');
    await createEnv(b, 'shared');
  });
});

describe('values', () => {
  test('are stored encrypted: the plaintext never appears in the database', async () => {
    const org = await createTestOrg(h.services);
    const secret = 'PLAINTEXT-MARKER-' + Math.random().toString(36).slice(2);
    const env = await createEnv(org, 'enc', { ONE: secret, TWO: secret });
    const rows = await rawRows(env.id);
    expect(rows.map((r) => r.key)).toEqual(['ONE', 'TWO']);
    for (const row of rows) {
      expect(row.value_encrypted).not.toContain(secret);
      expect(row.value_encrypted).not.toContain(Buffer.from(secret).toString('base64'));
      expect(row.value_encrypted).not.toContain(Buffer.from(secret).toString('base64url'));
      expect(row.value_encrypted).not.toContain(Buffer.from(secret).toString('hex'));
    }
    // Same plaintext, different ciphertexts (fresh nonce, per-key binding).
    expect(rows[0].value_encrypted).not.toBe(rows[1].value_encrypted);

    // Also after a single set and a replace.
    const secret2 = 'SECOND-MARKER-' + Math.random().toString(36).slice(2);
    expect((await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/THREE`).send({ value: secret2 })).status).toBe(200);
    const secret3 = 'THIRD-MARKER-' + Math.random().toString(36).slice(2);
    expect(
      (
        await as(h.app, org.ownerToken)
          .put(`/environments/${env.id}/variables`)
          .send({ variables: { THREE: secret2, FOUR: secret3 } })
      ).status,
    ).toBe(200);
    const all = JSON.stringify(await rawRows(env.id));
    expect(all).not.toContain(secret2);
    expect(all).not.toContain(secret3);
    expect(await valuesOf(org, env.id)).toEqual({ THREE: secret2, FOUR: secret3 });
  });

  test('GET /environments/{id}/variables returns plaintext only to roles with secrets:view', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'perm', { K: 'value-k' });
    for (const role of ROLES) {
      const res = await as(h.app, org.tokens[role]).get(`/environments/${env.id}/variables`);
      if (ROLE_PERMISSIONS[role].includes('secrets:view')) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ environmentId: env.id, name: 'perm', variables: { K: 'value-k' } });
        expect(res.headers['cache-control']).toBe('no-store');
      } else {
        expectError(res, 403, 'missing_permission');
        expect(JSON.stringify(res.body)).not.toContain('value-k');
      }
    }
    // The table itself: developers see secrets, analysts and viewers do not.
    expect(ROLE_PERMISSIONS.developer).toContain('secrets:view');
    expect(ROLE_PERMISSIONS.analyst).not.toContain('secrets:view');
    expect(ROLE_PERMISSIONS.viewer).not.toContain('secrets:view');
  });
});

describe('variables', () => {
  test('PUT /environments/{id}/variables replaces all: removed keys are gone, kept keys updated', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'rep', { KEEP: 'old', DROP: 'gone-value', ALSO_DROP: 'x' });
    const res = await as(h.app, org.ownerToken)
      .put(`/environments/${env.id}/variables`)
      .send({ variables: { KEEP: 'new', ADDED: 'added' } });
    expect(res.status).toBe(200);
    expect(res.body.variables.map((v: { key: string }) => v.key)).toEqual(['ADDED', 'KEEP']);
    expect(await valuesOf(org, env.id)).toEqual({ KEEP: 'new', ADDED: 'added' });
    expect((await rawRows(env.id)).map((r) => r.key)).toEqual(['ADDED', 'KEEP']);

    const cleared = await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables`).send({ variables: {} });
    expect(cleared.status).toBe(200);
    expect(cleared.body.variables).toEqual([]);
    expect(await rawRows(env.id)).toEqual([]);
  });

  test('secrets=omit answers only the values that are not secrets; a bad value is 400', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'omit', {});
    await as(h.app, org.ownerToken)
      .put(`/environments/${env.id}/variables`)
      .send({ variables: { REGION: { value: 'eu-west', secret: false }, API_KEY: { value: 'sk-do-not-show', secret: true } } })
      .expect(200);
    const omitted = await as(h.app, org.ownerToken).get(`/environments/${env.id}/variables?secrets=omit`);
    expect(omitted.body.variables).toEqual({ REGION: 'eu-west' });
    expect(omitted.text).not.toContain('sk-do-not-show');
    expect(await valuesOf(org, env.id)).toEqual({ REGION: 'eu-west', API_KEY: 'sk-do-not-show' });
    expectError(await as(h.app, org.ownerToken).get(`/environments/${env.id}/variables?secrets=hide`), 400);
  });

  test('a failed replace (one value too long) changes nothing', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'atomic', { A: 'a1', B: 'b1' });
    const before = await rawRows(env.id);
    const res = await as(h.app, org.ownerToken)
      .put(`/environments/${env.id}/variables`)
      .send({ variables: { A: 'a2', C: 'c2', D: 'x'.repeat(10_001) } });
    expectError(res, 400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'variables.D' })]));
    expect(await valuesOf(org, env.id)).toEqual({ A: 'a1', B: 'b1' });
    expect(await rawRows(env.id)).toEqual(before);

    const badKey = await as(h.app, org.ownerToken)
      .put(`/environments/${env.id}/variables`)
      .send({ variables: { A: 'a3', 'bad key': 'v' } });
    expectError(badKey, 400);
    expect(await valuesOf(org, env.id)).toEqual({ A: 'a1', B: 'b1' });
  });

  test('PUT and DELETE a single variable; DELETE of an unknown key is 404', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'single', { A: '1' });
    const put = await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/B`).send({ value: '2' });
    expect(put.status).toBe(200);
    expect(put.body.variables.map((v: { key: string }) => v.key)).toEqual(['A', 'B']);
    expect(JSON.stringify(put.body)).not.toContain('"2"');
    const overwrite = await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/A`).send({ value: 'one' });
    expect(overwrite.status).toBe(200);
    expect(await valuesOf(org, env.id)).toEqual({ A: 'one', B: '2' });

    const del = await as(h.app, org.ownerToken).delete(`/environments/${env.id}/variables/A`);
    expect(del.status).toBe(200);
    expect(del.body.variables.map((v: { key: string }) => v.key)).toEqual(['B']);
    expect(await valuesOf(org, env.id)).toEqual({ B: '2' });

    const again = await as(h.app, org.ownerToken).delete(`/environments/${env.id}/variables/A`);
    expectError(again, 404, 'not_found');
    const unknown = await as(h.app, org.ownerToken).delete(`/environments/${env.id}/variables/NEVER_SET`);
    expectError(unknown, 404, 'not_found');
    expect(await valuesOf(org, env.id)).toEqual({ B: '2' });

    const wrongBody = await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/B`).send({ value: 5 });
    expectError(wrongBody, 400);
    expect(await valuesOf(org, env.id)).toEqual({ B: '2' });
  });

  test('the secret flag: true by default, settable per variable, kept when a write leaves it out, shown in reads', async () => {
    const org = await createTestOrg(h.services);
    const created = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'flags', variables: { TOKEN: 'tok-value-1', BASE_URL: { value: 'https://api.example.test', secret: false } } });
    expect(created.status).toBe(201);
    const flags = async () => {
      const res = await as(h.app, org.tokens.viewer).get(`/environments/${created.body.id}`);
      return Object.fromEntries(res.body.variables.map((v: { key: string; secret: boolean }) => [v.key, v.secret]));
    };
    expect(await flags()).toEqual({ BASE_URL: false, TOKEN: true });
    // A write without the flag keeps it; with it, sets it.
    expect((await as(h.app, org.ownerToken).put(`/environments/${created.body.id}/variables/BASE_URL`).send({ value: 'https://v2.example.test' })).status).toBe(
      200,
    );
    expect((await as(h.app, org.ownerToken).put(`/environments/${created.body.id}/variables/TOKEN`).send({ value: 'tok-value-2', secret: false })).status).toBe(
      200,
    );
    expect((await as(h.app, org.ownerToken).put(`/environments/${created.body.id}/variables/NEW`).send({ value: 'fresh' })).status).toBe(200);
    expect(await flags()).toEqual({ BASE_URL: false, NEW: true, TOKEN: false });
    const replaced = await as(h.app, org.ownerToken)
      .put(`/environments/${created.body.id}/variables`)
      .send({ variables: { BASE_URL: 'https://v3.example.test', TOKEN: { value: 'tok-value-3', secret: true } } });
    expect(replaced.status).toBe(200);
    expect(await flags()).toEqual({ BASE_URL: false, TOKEN: true });
    expect(await valuesOf(org, created.body.id)).toEqual({ BASE_URL: 'https://v3.example.test', TOKEN: 'tok-value-3' });
    // The value stays encrypted at rest whatever the flag.
    expect(JSON.stringify(await rawRows(created.body.id))).not.toContain('v3.example.test');
    expectError(await as(h.app, org.ownerToken).put(`/environments/${created.body.id}/variables/X`).send({ value: 'v', secret: 'no' }), 400);
    expectError(
      await as(h.app, org.ownerToken)
        .put(`/environments/${created.body.id}/variables`)
        .send({ variables: { X: { value: 'v', extra: 1 } } }),
      400,
    );
  });

  test('single-variable routes on an unknown environment give 404', async () => {
    const org = await createTestOrg(h.services);
    expectError(await as(h.app, org.ownerToken).put(`/environments/${UNKNOWN_ID}/variables/A`).send({ value: '1' }), 404);
    expectError(await as(h.app, org.ownerToken).delete(`/environments/${UNKNOWN_ID}/variables/A`), 404);
    expectError(
      await as(h.app, org.ownerToken)
        .put(`/environments/${UNKNOWN_ID}/variables`)
        .send({ variables: { A: '1' } }),
      404,
    );
    expectError(await as(h.app, org.ownerToken).get(`/environments/${UNKNOWN_ID}/variables`), 404);
    const count = await h.services.db.query(`SELECT count(*)::int AS n FROM environment_variables WHERE environment_id = $1`, [UNKNOWN_ID]);
    expect(count[0].n).toBe(0);
  });
});

describe('rename and delete', () => {
  test('PATCH renames and keeps the variables; renaming onto a taken name is duplicate_name', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'old_name', { A: '1' });
    await createEnv(org, 'taken');
    const res = await as(h.app, org.ownerToken).patch(`/environments/${env.id}`).send({ name: 'new_name', description: 'desc' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: env.id, name: 'new_name', description: 'desc' });
    const got = await as(h.app, org.ownerToken).get(`/environments/${env.id}`);
    expect(got.body.name).toBe('new_name');
    expect(await valuesOf(org, env.id)).toEqual({ A: '1' });

    const dup = await as(h.app, org.ownerToken).patch(`/environments/${env.id}`).send({ name: 'taken' });
    expectError(dup, 400, 'duplicate_name');
    const bad = await as(h.app, org.ownerToken).patch(`/environments/${env.id}`).send({ name: '9bad' });
    expectError(bad, 400);
    expect(bad.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' })]));
    expect((await as(h.app, org.ownerToken).get(`/environments/${env.id}`)).body.name).toBe('new_name');
  });

  test('DELETE removes the environment and its variables; then every route gives 404', async () => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'doomed', { A: '1', B: '2' });
    const del = await as(h.app, org.ownerToken).delete(`/environments/${env.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: env.id, name: 'doomed' });
    expect(JSON.stringify(del.body)).not.toContain('"1"');

    expectError(await as(h.app, org.ownerToken).get(`/environments/${env.id}`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).get(`/environments/${env.id}/variables`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).patch(`/environments/${env.id}`).send({ name: 'x' }), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).delete(`/environments/${env.id}`), 404, 'not_found');
    expectError(
      await as(h.app, org.ownerToken)
        .put(`/environments/${env.id}/variables`)
        .send({ variables: { A: '1' } }),
      404,
    );
    expectError(await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/A`).send({ value: '1' }), 404);
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(0);
    expect(await rawRows(env.id)).toEqual([]);
    // The name is free again.
    await createEnv(org, 'doomed');
  });

  test('a non-UUID id is a 400 naming params.id', async () => {
    const org = await createTestOrg(h.services);
    const res = await as(h.app, org.ownerToken).get('/environments/not-a-uuid');
    expectError(res, 400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'params.id' })]));
  });
});

describe('permissions', () => {
  type Call = {
    name: string;
    permission: Permission;
    run: (token: string, org: TestOrg, envId: string) => request.Test;
    ok: number;
    /** What an allowed call must have done. */
    effect?: (org: TestOrg, envId: string) => Promise<void>;
  };
  const names = async (org: TestOrg) => (await as(h.app, org.ownerToken).get('/environments')).body.data.map((e: { name: string }) => e.name);
  const calls: Call[] = [
    { name: 'GET /environments', permission: 'workflows:view', ok: 200, run: (t) => as(h.app, t).get('/environments') },
    {
      name: 'POST /environments',
      permission: 'secrets:admin',
      ok: 201,
      run: (t) =>
        as(h.app, t)
          .post('/environments')
          .send({ name: 'created_by_role', variables: { NEW: 'n' } }),
      effect: async (org) => expect(await names(org)).toEqual(['created_by_role', 'subject']),
    },
    { name: 'GET /environments/{id}', permission: 'workflows:view', ok: 200, run: (t, _o, id) => as(h.app, t).get(`/environments/${id}`) },
    {
      name: 'PATCH /environments/{id}',
      permission: 'secrets:admin',
      ok: 200,
      run: (t, _o, id) => as(h.app, t).patch(`/environments/${id}`).send({ name: 'renamed' }),
      effect: async (org) => expect(await names(org)).toEqual(['renamed']),
    },
    {
      name: 'DELETE /environments/{id}',
      permission: 'secrets:admin',
      ok: 200,
      run: (t, _o, id) => as(h.app, t).delete(`/environments/${id}`),
      effect: async (org) => expect(await names(org)).toEqual([]),
    },
    { name: 'GET /environments/{id}/variables', permission: 'secrets:view', ok: 200, run: (t, _o, id) => as(h.app, t).get(`/environments/${id}/variables`) },
    {
      name: 'PUT /environments/{id}/variables',
      permission: 'secrets:admin',
      ok: 200,
      run: (t, _o, id) =>
        as(h.app, t)
          .put(`/environments/${id}/variables`)
          .send({ variables: { REPLACED: 'r' } }),
      effect: async (org, id) => expect(await valuesOf(org, id)).toEqual({ REPLACED: 'r' }),
    },
    {
      name: 'PUT /environments/{id}/variables/{key}',
      permission: 'secrets:admin',
      ok: 200,
      run: (t, _o, id) => as(h.app, t).put(`/environments/${id}/variables/ORIG`).send({ value: 'changed' }),
      effect: async (org, id) => expect(await valuesOf(org, id)).toEqual({ ORIG: 'changed' }),
    },
    {
      name: 'DELETE /environments/{id}/variables/{key}',
      permission: 'secrets:admin',
      ok: 200,
      run: (t, _o, id) => as(h.app, t).delete(`/environments/${id}/variables/ORIG`),
      effect: async (org, id) => expect(await valuesOf(org, id)).toEqual({}),
    },
  ];
  const cases = calls.flatMap((c) => ROLES.map((role) => [c.name, role, c] as const));

  test.each(cases)('%s as %s', async (_name, role: Role, call) => {
    const org = await createTestOrg(h.services);
    const env = await createEnv(org, 'subject', { ORIG: 'orig' });
    const beforeRows = await rawRows(env.id);
    const res = await call.run(org.tokens[role], org, env.id);
    if (ROLE_PERMISSIONS[role].includes(call.permission)) {
      expect(res.status).toBe(call.ok);
      await call.effect?.(org, env.id);
    } else {
      expectError(res, 403, 'missing_permission');
      // Nothing changed.
      const list = await as(h.app, org.ownerToken).get('/environments');
      expect(list.body.total).toBe(1);
      expect(list.body.data[0]).toMatchObject({ id: env.id, name: 'subject' });
      expect(await rawRows(env.id)).toEqual(beforeRows);
      expect(JSON.stringify(res.body)).not.toContain('orig"');
    }
  });

  test('the expected matrix (a regression guard for the role table)', () => {
    const may = (p: Permission) => ROLES.filter((r) => ROLE_PERMISSIONS[r].includes(p));
    expect(may('workflows:view')).toEqual(['owner', 'admin', 'developer', 'analyst', 'viewer']);
    expect(may('secrets:view')).toEqual(['owner', 'admin', 'developer']);
    expect(may('secrets:admin')).toEqual(['owner', 'admin', 'developer']);
  });

  test('no token gives 401 on every environment route', async () => {
    for (const [method, url] of [
      ['get', '/environments'],
      ['post', '/environments'],
      ['get', `/environments/${UNKNOWN_ID}`],
      ['patch', `/environments/${UNKNOWN_ID}`],
      ['delete', `/environments/${UNKNOWN_ID}`],
      ['get', `/environments/${UNKNOWN_ID}/variables`],
      ['put', `/environments/${UNKNOWN_ID}/variables`],
      ['put', `/environments/${UNKNOWN_ID}/variables/A`],
      ['delete', `/environments/${UNKNOWN_ID}/variables/A`],
    ] as const) {
      const res = await request(h.app)[method](url);
      expectError(res, 401, 'unauthorized');
    }
  });
});

describe('organization isolation', () => {
  test('another organization gets 404 on every id route and changes nothing', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const env = await createEnv(a, 'private_env', { SECRET: 'a-secret-value' });
    const beforeRows = await rawRows(env.id);
    const beforeEnv = (await as(h.app, a.ownerToken).get(`/environments/${env.id}`)).body;

    for (const token of [b.ownerToken, b.tokens.admin, b.tokens.developer]) {
      const responses = [
        await as(h.app, token).get(`/environments/${env.id}`),
        await as(h.app, token).get(`/environments/${env.id}/variables`),
        await as(h.app, token).patch(`/environments/${env.id}`).send({ name: 'hijacked' }),
        await as(h.app, token)
          .put(`/environments/${env.id}/variables`)
          .send({ variables: { SECRET: 'overwritten' } }),
        await as(h.app, token).put(`/environments/${env.id}/variables/SECRET`).send({ value: 'overwritten' }),
        await as(h.app, token).put(`/environments/${env.id}/variables/NEW_KEY`).send({ value: 'planted' }),
        await as(h.app, token).delete(`/environments/${env.id}/variables/SECRET`),
        await as(h.app, token).delete(`/environments/${env.id}`),
      ];
      for (const res of responses) {
        expectError(res, 404, 'not_found');
        expect(JSON.stringify(res.body)).not.toContain('a-secret-value');
        expect(JSON.stringify(res.body)).not.toContain('private_env');
      }
      const list = await as(h.app, token).get('/environments');
      expect(list.body.total).toBe(0);
    }

    expect(await rawRows(env.id)).toEqual(beforeRows);
    const after = (await as(h.app, a.ownerToken).get(`/environments/${env.id}`)).body;
    expect(after).toEqual(beforeEnv);
    expect(await valuesOf(a, env.id)).toEqual({ SECRET: 'a-secret-value' });
    // No variable rows were planted under b's organization for a's environment either.
    const planted = await h.services.db.query(`SELECT count(*)::int AS n FROM environment_variables WHERE organization_id = $1`, [b.organizationId]);
    expect(planted[0].n).toBe(0);
  });

  test('a user of both organizations sees each one only in its own active organization', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const env = await createEnv(a, 'only_in_a', { K: 'v' });
    // b's owner cannot switch into a with X-Organization-Id: not a member.
    const res = await as(h.app, b.ownerToken).get(`/environments/${env.id}`).set('X-Organization-Id', a.organizationId);
    expectError(res, 403, 'no_organization_access');
  });
});
