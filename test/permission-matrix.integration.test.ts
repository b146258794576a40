import request from 'supertest';
import express, { Router, type RequestHandler } from 'express';
import { ROLE_PERMISSIONS, ROLES, type Role } from '../src/auth/roles';
import type { Harness } from './harness';
import type { OrgFixtures } from './permission-fixtures';
import type { TestOrg } from './factories';
import {
  type Access,
  type Caller,
  errorCode,
  type FeedFixtures,
  NAMING_A,
  type Probe,
  registeredRoutes,
  type RouteCase,
  type RouteFixtures,
  routeKey,
  ROUTES,
  show,
  startRouteFixtures,
  textOf,
} from './route-catalog';

/**
 * The permission matrix of the security review: every route the app has
 * registered (test/route-catalog.ts) is called with no token, an unknown
 * token, each role's token, the owner of another organization (organization
 * B) on A's resources, and B's owner naming A in X-Organization-Id, and each
 * answer is judged against the route's expected access.
 *
 * Unlike the other integration files, the routes share one organization's
 * fixtures (built once: ~90 routes times 10 callers would otherwise take
 * minutes). No call changes a shared fixture in a way a later one depends
 * on; a call that destroys what it names gets a resource of its own (`fresh`).
 */

let fixtures: RouteFixtures;
let h: Harness;
let A: OrgFixtures;
let B: TestOrg;
let F: FeedFixtures;

const noop: RequestHandler = (_req, res) => {
  res.end();
};

beforeAll(async () => {
  fixtures = await startRouteFixtures();
  ({ h, A, B, feed: F } = fixtures);
});
afterAll(async () => {
  await fixtures?.close();
});

const may = (role: Role, access: Access) => access === 'member' || (access !== 'public' && ROLE_PERMISSIONS[role].includes(access));

function headersOf(caller: Caller): Record<string, string> {
  switch (caller) {
    case 'anonymous':
      return {};
    case 'unknown token':
      return { Authorization: 'Bearer fbt_unknown0000000000000000000000000000' };
    case 'owner of B':
      return { Authorization: `Bearer ${B.ownerToken}` };
    case 'owner of B naming A by id':
      return { Authorization: `Bearer ${B.ownerToken}`, 'X-Organization-Id': A.org.organizationId };
    case 'owner of B naming A by suid':
      return { Authorization: `Bearer ${B.ownerToken}`, 'X-Organization-Id': A.org.organizationSuid };
    default:
      return { Authorization: `Bearer ${A.org.tokens[caller]}` };
  }
}

async function call(probe: Probe, method: string, caller: Caller): Promise<request.Response> {
  let req = (request(h.app) as any)[method.toLowerCase()](probe.url) as request.Test;
  for (const [name, value] of Object.entries(headersOf(caller))) req = req.set(name, value);
  if (probe.raw) return req.set('Content-Type', probe.raw.type).send(probe.raw.data);
  return probe.body === undefined ? req : req.send(probe.body as object);
}

const passedAuthorization = (res: request.Response) => res.status !== 401 && res.status !== 403 && res.status !== 404 && res.status < 500;

/**
 * What is wrong with the answer `caller` got, or undefined. `ownerAnswer` is
 * what A's owner got from the same call: for a list, it must show A's data,
 * or B's answer lacking it would prove nothing.
 */
function judge(c: RouteCase, caller: Caller, probe: Probe, res: request.Response, ownerAnswer: string): string | undefined {
  if (c.access === 'public') return passedAuthorization(res) ? undefined : `a public route must answer without a token, got ${show(res)}`;
  if (caller === 'anonymous' || caller === 'unknown token') {
    return res.status === 401 && errorCode(res) === 'unauthorized' ? undefined : `expected 401 unauthorized, got ${show(res)}`;
  }
  if (caller === 'owner of B naming A by id' || caller === 'owner of B naming A by suid') {
    return res.status === 403 && errorCode(res) === 'no_organization_access' ? undefined : `expected 403 no_organization_access, got ${show(res)}`;
  }
  if (caller === 'owner of B') {
    const sent = probe.url + JSON.stringify(probe.body ?? probe.raw ?? '');
    const leaked = A.own.filter((s) => !sent.includes(s) && textOf(res).includes(s));
    if (leaked.length) return `organization A's ${leaked.join(', ')} in B's answer: ${show(res)}`;
    if (c.sameForEveryOrganization) return textOf(res) === ownerAnswer ? undefined : `expected the answer A's owner got, got ${show(res)}`;
    if (c.method === 'GET' && !c.path.includes(':') && !A.own.some((s) => ownerAnswer.includes(s))) {
      return `A's owner got nothing of A from this list, so B's answer proves nothing: ${ownerAnswer.slice(0, 300)}`;
    }
    if (c.ownerOfB) return c.ownerOfB(res);
    if (c.path.includes(':'))
      return res.status === 404 && errorCode(res) === 'not_found' ? undefined : `expected 404 not_found for A's resource, got ${show(res)}`;
    return res.status !== 401 && res.status !== 403 && res.status < 500 ? undefined : `expected B's own answer, got ${show(res)}`;
  }
  if (may(caller, c.access)) return passedAuthorization(res) ? undefined : `the ${caller} role may call it (${c.access}), got ${show(res)}`;
  return res.status === 403 && errorCode(res) === 'missing_permission'
    ? undefined
    : `the ${caller} role lacks ${c.access}: expected 403 missing_permission, got ${show(res)}`;
}

test('the matrix lists exactly the routes the router has', () => {
  const registered = registeredRoutes(h.app);
  const listed = ROUTES.map(routeKey);
  expect(listed.filter((k, i) => listed.indexOf(k) !== i)).toEqual([]);
  expect([
    ...registered.filter((k) => !listed.includes(k)).map((k) => `${k} is registered: add it to the permission matrix`),
    ...listed.filter((k) => !registered.includes(k)).map((k) => `${k} is in the permission matrix but the router has no such route`),
  ]).toEqual([]);
  // Routes of the domain router, and those registered with app.get, app.use and app.all.
  expect(registered).toEqual(expect.arrayContaining(['GET /healthz', 'GET /openapi.json', 'USE /docs', 'ALL /w/@:organizationSuid/:triggerName']));
});

test('the walk sees routes however they are registered', () => {
  // A stand-in app: a mounted router (also under a prefix), several methods on one path, app.all and a path mount.
  const probe = express();
  const router = Router();
  router.get('/items', noop).post('/items', noop);
  router.route('/items/:id').get(noop).delete(noop);
  const nested = Router();
  nested.patch('/:id', noop);
  probe.use(noop);
  probe.use(router);
  probe.use('/admin', nested);
  probe.all('/hook/:name', noop);
  probe.use('/static', noop, noop);
  expect(registeredRoutes(probe)).toEqual([
    'ALL /hook/:name',
    'DELETE /items/:id',
    'GET /items',
    'GET /items/:id',
    'PATCH /admin/:id',
    'POST /items',
    'USE /static',
  ]);
});

describe.each(ROUTES.map((c) => [routeKey(c), c] as const))('%s', (_name, c) => {
  const callers: Caller[] = c.access === 'public' ? ['anonymous'] : ['anonymous', 'unknown token', ...ROLES, 'owner of B', ...NAMING_A];
  test(c.access === 'public' ? 'public: answers without a token' : `needs ${c.access}`, async () => {
    const made = new Map<string, Promise<unknown>>();
    const fresh = <T>(make: () => Promise<T>, k = '') => {
      if (!made.has(k)) made.set(k, make());
      return made.get(k) as Promise<T>;
    };
    const failures: string[] = [];
    let ownerAnswer = '';
    for (const caller of callers) {
      const probe = await c.build({ a: A, caller, fresh, feed: F });
      const res = await call(probe, probe.method ?? c.method, caller);
      // A call that succeeded may have consumed the route's own resource: the next caller gets a new one.
      if (res.status >= 200 && res.status < 300) made.clear();
      if (caller === 'owner of B') await c.afterOwnerOfB?.(B, A, h.app);
      if (caller === 'owner') ownerAnswer = textOf(res);
      const wrong = judge(c, caller, probe, res, ownerAnswer);
      if (wrong) failures.push(`${caller}: ${wrong}`);
    }
    expect(failures).toEqual([]);
  });
});
