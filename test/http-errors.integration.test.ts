import request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import { as, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';
import { validateOpenApi } from './openapi-validator';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The one error body: `{error: {code, message, details?, requestId}}`, nothing else. */
function expectErrorBody(res: request.Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const e = res.body.error;
  expect(typeof e.code).toBe('string');
  expect(e.code).toMatch(/^[a-z_]+$/);
  expect(typeof e.message).toBe('string');
  expect(e.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(e)) expect(['code', 'message', 'details', 'requestId']).toContain(key);
  if (e.details !== undefined) {
    expect(Array.isArray(e.details)).toBe(true);
    for (const d of e.details) {
      expect(Object.keys(d).sort()).toEqual(['message', 'path']);
      expect(typeof d.path).toBe('string');
      expect(typeof d.message).toBe('string');
    }
  }
  if (code) expect(e.code).toBe(code);
  return e as { code: string; message: string; details?: Array<{ path: string; message: string }>; requestId?: string };
}

/** …and the requestId is the one the response header carries. */
function expectRequestId(res: request.Response) {
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
}

const paths = (res: request.Response) => (res.body.error.details ?? []).map((d: { path: string }) => d.path).sort();

function bytesOf(limit: string): number {
  const m = /^(\d+)(b|kb|mb)$/i.exec(limit)!;
  const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[m[2].toLowerCase() as 'b' | 'kb' | 'mb'];
  return Number(m[1]) * unit;
}

let org: TestOrg;
beforeAll(async () => {
  org = await createTestOrg(h.services);
});

describe('one error body shape', () => {
  test('validation, auth, permission, not found and conflict errors share it, each with the request id', async () => {
    const other = await createTestOrg(h.services);
    const env = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: `shape_${Date.now()}` });
    expect(env.status).toBe(201);
    const viewer = (await as(h.app, org.ownerToken).get('/organization/members')).body.data.find((m: { role: string }) => m.role === 'viewer');

    const cases: Array<[request.Response, number, string]> = [
      [await as(h.app, org.ownerToken).post('/environments').send({ name: '1bad' }), 400, 'validation_failed'],
      [await as(h.app, org.ownerToken).post('/environments').send({ name: env.body.name }), 400, 'duplicate_name'],
      [await request(h.app).get('/environments'), 401, 'unauthorized'],
      [await request(h.app).get('/environments').set('Authorization', 'Basic x'), 401, 'unauthorized'],
      [await as(h.app, org.tokens.viewer).post('/environments').send({ name: 'x' }), 403, 'missing_permission'],
      [await as(h.app, org.ownerToken).get('/environments').set('X-Organization-Id', other.organizationId), 403, 'no_organization_access'],
      [await as(h.app, org.tokens.admin).post('/organization/invitations').send({ email: 'someone@example.test', role: 'owner' }), 403, 'owner_required'],
      [await as(h.app, org.ownerToken).get(`/environments/${env.body.id}`).set('X-Organization-Id', org.organizationId), 200, ''],
      [await as(h.app, other.ownerToken).get(`/environments/${env.body.id}`), 404, 'not_found'],
      [await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: viewer.email, role: 'viewer' }), 409, 'already_member'],
      [await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'application/json').send('{"name":'), 400, 'invalid_json'],
      [await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'text/plain').send('name=x'), 415, 'unsupported_media_type'],
    ];
    for (const [res, status, code] of cases) {
      if (status === 200) {
        expect(res.status).toBe(200);
        continue;
      }
      expectErrorBody(res, status, code);
      expectRequestId(res);
    }
    // Validation errors carry details; the others need not.
    expect(cases[0][0].body.error.details.length).toBeGreaterThan(0);
  });

  test('an unknown route is 404 route_not_found in the same shape', async () => {
    for (const res of [
      await request(h.app).get('/no/such/route'),
      await as(h.app, org.ownerToken).get('/environmentz'),
      await as(h.app, org.ownerToken).post('/environments/extra/segments/here'),
      await request(h.app).patch('/environments'),
    ]) {
      const e = expectErrorBody(res, 404, 'route_not_found');
      expect(e.message).toContain('No route');
    }
  });

  test('paths match as written: another case is an unknown route, while a trailing slash still finds its route', async () => {
    for (const res of [
      await as(h.app, org.ownerToken).get('/WORKFLOWS'),
      await as(h.app, org.ownerToken).get('/Environments'),
      await as(h.app, org.ownerToken).post('/Session').send({ token: org.ownerToken }),
      await request(h.app).get('/OPENAPI.json'),
      await request(h.app).get('/Console/'),
    ]) {
      expectErrorBody(res, 404, 'route_not_found');
    }
    // Strict routing stays off.
    expect((await as(h.app, org.ownerToken).get('/workflows/')).status).toBe(200);
    expect((await request(h.app).get('/openapi.json/')).status).toBe(200);
  });

  test('a path whose percent-encoding does not decode is 400 invalid_path, not a 500', async () => {
    for (const url of ['/data-stores/tables/t1/records/%E0%A4%A', '/connections/%ED%A0%80']) {
      expectErrorBody(await as(h.app, org.ownerToken).get(url), 400, 'invalid_path');
    }
  });

  test('route_not_found also carries the request id', async () => {
    const res = await request(h.app).get('/no/such/route');
    expectErrorBody(res, 404, 'route_not_found');
    expectRequestId(res);
  });

  test('a request id is a fresh UUID per request', async () => {
    const a = await request(h.app).get('/environments');
    const b = await request(h.app).get('/environments');
    expect(a.body.error.requestId).not.toBe(b.body.error.requestId);
  });
});

describe('request bodies', () => {
  test('malformed JSON gives 400 invalid_json and changes nothing', async () => {
    const before = (await as(h.app, org.ownerToken).get('/environments')).body.total;
    for (const body of ['{"name": "x"', '{name: "x"}', "{'name':'x'}", '{"name":"x",}', 'not json']) {
      const res = await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'application/json').send(body);
      const e = expectErrorBody(res, 400, 'invalid_json');
      expectRequestId(res);
      // The parser's internals do not leak.
      expect(e.message).not.toMatch(/Unexpected token|at position|SyntaxError/);
    }
    // Without a token the body is never read: authentication comes first.
    const anon = await request(h.app).post('/environments').set('Content-Type', 'application/json').send('{"a":');
    expectErrorBody(anon, 401, 'unauthorized');
    // Nor without the permission: a viewer's malformed body is refused for the permission.
    const viewer = await as(h.app, org.tokens.viewer).post('/environments').set('Content-Type', 'application/json').send('{"a":');
    expectErrorBody(viewer, 403, 'missing_permission');
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(before);
  });

  test('a non-JSON content type on a POST with a body schema gives 415', async () => {
    const before = (await as(h.app, org.ownerToken).get('/environments')).body.total;
    const cases: Array<[string, string]> = [
      ['text/plain', '{"name":"as_text"}'],
      ['application/x-www-form-urlencoded', 'name=as_form'],
      ['application/xml', '<name>as_xml</name>'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nas_multipart\r\n--x--\r\n'],
    ];
    for (const [type, body] of cases) {
      const res = await as(h.app, org.ownerToken).post('/environments').set('Content-Type', type).send(body);
      expectErrorBody(res, 415, 'unsupported_media_type');
      expectRequestId(res);
    }
    const put = await as(h.app, org.ownerToken).post('/tokens').set('Content-Type', 'text/plain').send('{"name":"t"}');
    expectErrorBody(put, 415, 'unsupported_media_type');
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(before);
    // JSON with a charset parameter is JSON.
    const ok = await as(h.app, org.ownerToken)
      .post('/environments')
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ name: `charset_${Date.now()}` }));
    expect(ok.status).toBe(201);
  });

  test('unknown fields give 400 with the path of each unknown field', async () => {
    const res = await as(h.app, org.ownerToken).post('/environments').send({ name: 'unknown_fields', colour: 'red', owner: 'me' });
    expectErrorBody(res, 400, 'validation_failed');
    expect(paths(res)).toEqual(['colour', 'owner']);
    for (const d of res.body.error.details) expect(d.message).toBe('Unknown field');
    expect((await as(h.app, org.ownerToken).get('/environments')).body.data.map((e: { name: string }) => e.name)).not.toContain('unknown_fields');

    const env = (
      await as(h.app, org.ownerToken)
        .post('/environments')
        .send({ name: `uf_${Date.now()}` })
    ).body;
    const patch = await as(h.app, org.ownerToken).patch(`/environments/${env.id}`).send({ organizationId: org.organizationId });
    expectErrorBody(patch, 400);
    expect(paths(patch)).toEqual(['organizationId']);
    // `secret` is a field of a variable now; an unknown one still names itself.
    const put = await as(h.app, org.ownerToken).put(`/environments/${env.id}/variables/A`).send({ value: 'x', hidden: true });
    expect(paths(put)).toEqual(['hidden']);
    const member = await as(h.app, org.ownerToken).post('/organization/invitations').send({ email: 'a@example.test', role: 'viewer', permissions: [] });
    expect(paths(member)).toEqual(['permissions']);
    const query = await as(h.app, org.ownerToken).get('/environments?sort=name');
    expectErrorBody(query, 400);
    expect(paths(query)).toEqual(['query.sort']);
  });

  test('wrong types give 400 naming every bad field', async () => {
    const res = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 42, description: ['x'], variables: { A: 5, B: 'ok', C: null } });
    expectErrorBody(res, 400, 'validation_failed');
    expect(paths(res)).toEqual(['description', 'name', 'variables.A', 'variables.C']);

    const notObject = await as(h.app, org.ownerToken).post('/environments').send({ name: 'x', variables: 'A=1' });
    expect(paths(notObject)).toEqual(['variables']);

    const missing = await as(h.app, org.ownerToken).post('/environments').send({});
    expectErrorBody(missing, 400);
    expect(paths(missing)).toEqual(['name']);

    for (const body of ['[]', '"a string"', '42', 'null']) {
      const top = await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'application/json').send(body);
      expectErrorBody(top, 400);
      expect(paths(top).length).toBeGreaterThan(0);
    }

    const tokens = await as(h.app, org.ownerToken).post('/tokens').send({ name: 7, expiresInDays: '30' });
    expect(paths(tokens)).toEqual(['expiresInDays', 'name']);

    const limit = await as(h.app, org.ownerToken).get('/environments?limit=abc&offset=-1');
    expectErrorBody(limit, 400);
    expect(paths(limit)).toEqual(['query.limit', 'query.offset']);

    const param = await as(h.app, org.ownerToken).get('/environments/123');
    expect(paths(param)).toEqual(['params.id']);
  });

  test('a body over the limit gives 413 payload_too_large; just under is parsed', async () => {
    const limit = bytesOf(h.services.config.http.bodyLimit);
    expect(h.services.config.http.bodyLimit).toBe(process.env.BODY_LIMIT ?? '1mb');
    const before = (await as(h.app, org.ownerToken).get('/environments')).body.total;

    const over = JSON.stringify({ name: 'too_big', description: 'x'.repeat(limit + 10) });
    expect(Buffer.byteLength(over)).toBeGreaterThan(limit);
    const res = await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'application/json').send(over);
    expectErrorBody(res, 413, 'payload_too_large');
    expectRequestId(res);
    expect(JSON.stringify(res.body).length).toBeLessThan(1000);

    // Without a token the oversized body is refused before it is read.
    const anon = await request(h.app).post('/environments').set('Content-Type', 'application/json').send(over);
    expectErrorBody(anon, 401, 'unauthorized');

    // Just under the limit: parsed, then rejected by validation (not by size).
    const under = JSON.stringify({ name: 'under_limit', variables: { BIG: 'y'.repeat(limit - 200) } });
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(limit);
    const ok = await as(h.app, org.ownerToken).post('/environments').set('Content-Type', 'application/json').send(under);
    expectErrorBody(ok, 400, 'validation_failed');
    expect(paths(ok)).toEqual(['variables.BIG']);
    expect((await as(h.app, org.ownerToken).get('/environments')).body.total).toBe(before);
  });
});

describe('API reference', () => {
  test('/openapi.json is a valid OpenAPI 3.1 document with the connections and environments paths', async () => {
    const res = await request(h.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    // Checked against the OpenAPI 3.1 schema itself; the same validator refuses a 3.1 document without info.title.
    expect(await validateOpenApi(doc)).toEqual({ valid: true, version: '3.1' });
    expect(await validateOpenApi({ ...doc, info: { version: doc.info.version } })).toMatchObject({ valid: false, version: '3.1' });
    expect(typeof doc.info?.title).toBe('string');
    expect(typeof doc.info?.version).toBe('string');
    expect(doc.paths).toBeDefined();

    for (const p of [
      '/connections',
      '/connections/{id}',
      '/environments',
      '/environments/{id}',
      '/environments/{id}/variables',
      '/environments/{id}/variables/{key}',
    ]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(Object.keys(doc.paths['/environments']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/environments/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/environments/{id}/variables']).sort()).toEqual(['get', 'put']);
    expect(Object.keys(doc.paths['/environments/{id}/variables/{key}']).sort()).toEqual(['delete', 'put']);
    expect(Object.keys(doc.paths['/connections']).sort()).toEqual(['get', 'post']);
    // No Express-style paths leak through.
    for (const p of Object.keys(doc.paths)) expect(p).not.toMatch(/\/:/);

    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(item)) {
        if (!methods.includes(method)) continue;
        expect(op.responses && Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, r] of Object.entries<any>(op.responses)) {
          expect(status).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
          expect(typeof r.description).toBe('string');
        }
        if (op.operationId) {
          expect(operationIds.has(op.operationId)).toBe(false);
          operationIds.add(op.operationId);
        }
        // Every templated path segment is declared as a required path parameter.
        const declared = (op.parameters ?? []).concat(item.parameters ?? []).filter((p: any) => p.in === 'path');
        expect(declared.map((p: any) => p.name).sort()).toEqual([...templated].sort());
        for (const p of declared) expect(p.required).toBe(true);
        for (const p of op.parameters ?? []) expect(['query', 'header', 'path', 'cookie']).toContain(p.in);
        if (op.requestBody) expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
        for (const s of op.security ?? []) for (const name of Object.keys(s)) expect(Object.keys(doc.components.securitySchemes)).toContain(name);
      }
    }
    // Environment and authenticated routes document their errors with the Error schema.
    const envPost = doc.paths['/environments'].post;
    expect(envPost.requestBody.content['application/json'].schema).toBeDefined();
    for (const status of ['400', '401', '403']) {
      expect(envPost.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    }
    expect(envPost.security).toEqual([{ accessToken: [] }, { consoleSession: [] }]);

    // Every $ref resolves inside the document.
    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref.startsWith('#/')).toBe(true);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((n, seg) => n?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }

    // Component schemas are valid JSON Schema 2020-12 (the OpenAPI 3.1 dialect) and compile with their refs.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'https://flowbase.test/openapi.json', components: { schemas: doc.components.schemas } });
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Environment', 'Error', 'CreateEnvironment']));
    for (const name of names) {
      const schema = doc.components.schemas[name];
      expect({ name, valid: ajv.validateSchema(schema), errors: ajv.errors }).toEqual({ name, valid: true, errors: null });
      if (!ajv.getSchema(`https://flowbase.test/openapi.json#/components/schemas/${name}`)) {
        ajv.compile({ $ref: `https://flowbase.test/openapi.json#/components/schemas/${name}` });
      }
    }

    // The documented Error schema accepts a real error body and the Environment schema a real environment.
    const validateError = ajv.compile({ $ref: 'https://flowbase.test/openapi.json#/components/schemas/Error' });
    const realError = await as(h.app, org.ownerToken).post('/environments').send({ name: '!' });
    expect(validateError(realError.body)).toBe(true);
    const validateEnv = ajv.compile({ $ref: 'https://flowbase.test/openapi.json#/components/schemas/Environment' });
    const realEnv = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: `doc_${Date.now()}`, variables: { A: '1' } });
    expect(validateEnv(realEnv.body)).toBe(true);
    expect(validateEnv({ ...realEnv.body, id: 'nope', variables: 'x' })).toBe(false);
  });

  test('/docs/ serves an HTML page', async () => {
    const res = await request(h.app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.text).toContain('swagger-ui');
    expect(res.text).toContain('Flowbase API reference');
    // Its assets are served locally.
    const init = await request(h.app).get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/environments');
    const bundle = await request(h.app).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });
});
