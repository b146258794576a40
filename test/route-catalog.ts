import fs from 'node:fs';
import { METHODS } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { ROLES, type Permission, type Role } from '../src/auth/roles';
import { createConnection, type Harness, startHarness } from './harness';
import { startVendorStubs, type VendorStubs } from './stubs/vendor-apis';
import {
  buildOrgFixtures,
  calculatedFieldBody,
  dashboardImportBody,
  packageBody,
  DATA_SOURCE_SCHEMA,
  AMOUNT,
  llmPriceBody,
  type OrgFixtures,
  recordValue,
  widgetBody,
  windowDimensionBody,
  workflowSteps,
} from './permission-fixtures';
import { createTestOrg, type TestOrg, uniqueName } from './factories';

/**
 * Every route of the app, read from the router itself, and a valid call of
 * each on organization A's fixtures with who may make it, written here by
 * hand (the README's tables and what each route does, never defineRoute's
 * own declarations). The permission matrix and the hostile-input matrix both
 * walk it, so a route added without a line here fails both.
 */

// ---------------------------------------------------------------------------
// The routes the app has, from Express's own router stack.
// ---------------------------------------------------------------------------

/**
 * "METHOD /path" of every route: routes of the app and of every router mounted
 * on it (`app.use(router)`), one entry per method (`ALL` for `app.all`), and
 * `USE /path` for middleware mounted under a path that answers requests itself
 * (`app.use('/docs', …)`). Path-less middleware (logging, 404, errors) is skipped.
 */
export function registeredRoutes(app: Express): string[] {
  const found = new Set<string>();
  // Express 5's app.all registers the route once per HTTP method; router.all marks it _all.
  const methodsOf = (route: { methods: Record<string, boolean> }) => {
    const names = Object.keys(route.methods);
    return names.includes('_all') || METHODS.every((m) => names.includes(m.toLowerCase())) ? ['ALL'] : names.map((m) => m.toUpperCase());
  };
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const path of [layer.route.path].flat()) {
          if (typeof path !== 'string') throw new Error(`a route path the matrix cannot name: ${String(path)}`);
          for (const method of methodsOf(layer.route)) found.add(`${method} ${prefix}${path}`);
        }
        continue;
      }
      // Express 5 (router 2.x) keeps the path a layer was mounted at in rawPath; "/" with end: false is path-less.
      const mount = layer.slash ? '' : layer.rawPath;
      if (typeof mount !== 'string') throw new Error(`middleware mounted at a path the matrix cannot name: ${String(mount)}`);
      if (Array.isArray(layer.handle?.stack)) walk(layer.handle.stack, prefix + mount);
      else if (mount !== '') found.add(`USE ${prefix}${mount}`);
    }
  };
  walk((app as any).router.stack, '');
  return [...found].sort();
}

// ---------------------------------------------------------------------------
// The routes, a valid call of each, and who may make it.
// ---------------------------------------------------------------------------

/** `public`: no token needed. `member`: any member of the organization. Else the permission needed. */
export type Access = 'public' | 'member' | Permission;
/** B is a second organization: its owner holds every permission, but only in B. */
export type Caller = Role | 'anonymous' | 'unknown token' | 'owner of B' | 'owner of B naming A by id' | 'owner of B naming A by suid';
export const NAMING_A = ['owner of B naming A by id', 'owner of B naming A by suid'] as const;

export interface Probe {
  /** The method to call with, for ALL and USE entries. */
  method?: string;
  url: string;
  body?: unknown;
  /** A raw body with its Content-Type (file uploads). */
  raw?: { type: string; data: string };
}

export interface BuildContext {
  a: OrgFixtures;
  caller: Caller;
  /**
   * The route's own resource, made once and kept until a call to the route
   * succeeds (consumes it), then made again: destructive routes never touch
   * the shared fixtures. `key` separates resources per caller where needed.
   */
  fresh<T>(make: () => Promise<T>, key?: string): Promise<T>;
  feed: FeedFixtures;
}

export interface RouteCase {
  method: string;
  path: string;
  access: Access;
  build: (ctx: BuildContext) => Probe | Promise<Probe>;
  /**
   * What B's owner must get, when not the default (404 for a route naming a
   * resource in its path, otherwise anything but 401/403/5xx); returns what is wrong, if anything.
   */
  ownerOfB?: (res: request.Response) => string | undefined;
  /** The answer holds nothing of any organization (a catalog of the service's own): B's owner must get exactly A's owner's answer. */
  sameForEveryOrganization?: true;
  /** Undo what B's call did in B's own namespace (data store tables are addressed by name in each organization). */
  afterOwnerOfB?: (b: TestOrg, a: OrgFixtures, app: Express) => Promise<void>;
}

export const textOf = (res: request.Response) => res.text ?? (Buffer.isBuffer(res.body) ? res.body.toString('utf8') : JSON.stringify(res.body ?? ''));
export const show = (res: request.Response) => `${res.status} ${textOf(res).slice(0, 300)}`;
export const errorCode = (res: request.Response) => res.body?.error?.code;

/** One file of the console's build (npm test builds it first): hashed names change with every build. */
const consoleAsset = () => fs.readdirSync(path.resolve(__dirname, '../console/dist/assets')).find((f) => f.endsWith('.js'));

/** The token a caller acts with in A: its role's, and A's owner's for the callers of other organizations (their drafts are A's owner's). */
const tokenOfCaller = (a: OrgFixtures, caller: Caller) => a.org.tokens[(ROLES as readonly string[]).includes(caller) ? (caller as Role) : 'owner'];

const r = (method: string, path: string, access: Access, build: RouteCase['build'], extra: Partial<RouteCase> = {}): RouteCase => ({
  method,
  path,
  access,
  build,
  ...extra,
});

/** Writing a name that is free in B creates it there: B gets a creation of its own, never A's record. */
const createdInOwnNamespace = (res: request.Response) =>
  res.status === 201 || (res.status === 200 && res.body.created === 1 && res.body.updated === 0)
    ? undefined
    : `expected a creation in the caller's own organization, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
const dropTableOfB = async (b: TestOrg, a: OrgFixtures, app: Express) => {
  await request(app).delete(`/data-stores/tables/${a.table}`).set('Authorization', `Bearer ${b.ownerToken}`);
};
const tableIn = (a: OrgFixtures) => `/data-stores/tables/${a.table}`;
const recordIn = (a: OrgFixtures) => `${tableIn(a)}/records/${a.recordKey}`;
const sourceIn = (a: OrgFixtures, id = a.dataSource.id) => `/dashboards/data-sources/${id}`;
const query = (a: OrgFixtures) => ({ measures: [`${a.dataSource.cube}.count`], dimensions: [`${a.dataSource.cube}.region`] });
const dataStoreRoute = { afterOwnerOfB: dropTableOfB };
const dashboardIn = (a: OrgFixtures, id = a.dashboard.id) => `/dashboards/${id}`;
const widgetIn = (a: OrgFixtures, id = a.widget.id) => `/dashboards/widgets/${id}`;

export const ROUTES: RouteCase[] = [
  // Registered on the app itself.
  r('GET', '/openapi.json', 'public', () => ({ url: '/openapi.json' })),
  r('USE', '/docs', 'public', () => ({ method: 'GET', url: '/docs/' })),
  r('ALL', '/w/@:organizationSuid/:triggerName', 'public', ({ a }) => ({ method: 'POST', url: a.trigger.path, body: {} })),
  r('GET', '/healthz', 'public', () => ({ url: '/healthz' })),
  // The web console (README "Web console"): its pages and files are public; what they show comes from the API, with a session.
  r('GET', '/', 'public', () => ({ url: '/' })),
  r('USE', '/console', 'public', () => ({ method: 'GET', url: '/console/runs' })),
  r('GET', '/console', 'public', () => ({ url: '/console' })),
  r('GET', '/console/{*page}', 'public', () => ({ url: '/console/dashboards' })),
  r('USE', '/console/assets', 'public', () => ({ method: 'GET', url: `/console/assets/${consoleAsset()}` })),
  // Console sign-in: a token for a session cookie. GET answers who a bearer caller is too; DELETE ends a session (400 for a bearer token).
  r('POST', '/session', 'public', ({ a }) => ({ url: '/session', body: { token: a.org.tokens.viewer } })),
  r('GET', '/session', 'member', () => ({ url: '/session' })),
  r('DELETE', '/session', 'member', () => ({ url: '/session' })),

  // Organizations, members, invitations, tokens (README "Access").
  r('GET', '/organizations', 'member', () => ({ url: '/organizations' })),
  r('POST', '/organizations', 'member', () => ({ url: '/organizations', body: { name: uniqueName('Probe org') } })),
  r('GET', '/organization', 'member', () => ({ url: '/organization' })),
  r('PATCH', '/organization', 'members:admin', ({ a }) => ({ url: '/organization', body: { name: a.name } })),
  r('GET', '/organization/members', 'members:admin', () => ({ url: '/organization/members' })),
  r('PATCH', '/organization/members/:userId', 'members:admin', ({ a }) => ({ url: `/organization/members/${a.spareMemberId}`, body: { role: 'viewer' } })),
  r('DELETE', '/organization/members/:userId', 'members:admin', async ({ a, fresh }) => ({ url: `/organization/members/${await fresh(a.make.member)}` })),
  r('GET', '/organization/llm-prices', 'member', () => ({ url: '/organization/llm-prices' })),
  r('PUT', '/organization/llm-prices', 'members:admin', ({ a }) => ({ url: '/organization/llm-prices', body: llmPriceBody(a.llmPriceModel) }), {
    // B's call set B's own entries: cleared, so B's price table shows nothing B did not send itself.
    afterOwnerOfB: async (b, _a, app) => {
      await request(app).put('/organization/llm-prices').set('Authorization', `Bearer ${b.ownerToken}`).send({ entries: [] });
    },
  }),
  r('POST', '/organization/invitations', 'members:admin', () => ({
    url: '/organization/invitations',
    body: { email: `${uniqueName('probe')}@example.test`, role: 'viewer' },
  })),
  r('GET', '/organization/invitations', 'members:admin', () => ({ url: '/organization/invitations' })),
  r('DELETE', '/organization/invitations/:id', 'members:admin', async ({ a, fresh }) => ({
    url: `/organization/invitations/${(await fresh(a.make.invitation)).id}`,
  })),
  r('POST', '/invitations/preview', 'public', async ({ a }) => ({ url: '/invitations/preview', body: { code: (await a.make.invitation()).code } })),
  r('POST', '/invitations/accept', 'public', async ({ a, fresh }) => ({ url: '/invitations/accept', body: { code: (await fresh(a.make.invitation)).code } })),
  r('GET', '/tokens', 'member', () => ({ url: '/tokens' })),
  r('POST', '/tokens', 'member', () => ({ url: '/tokens', body: { name: 'probe', permissions: ['workflows:view'] } })),
  // One of the caller's own tokens (for B and the token-less calls, one of A's owner).
  r('DELETE', '/tokens/:id', 'member', async ({ a, caller, fresh }) => {
    const role: Role = (ROLES as readonly string[]).includes(caller) ? (caller as Role) : 'owner';
    return { url: `/tokens/${await fresh(() => a.make.tokenOf(a.org.tokens[role]), role)}` };
  }),
  r('GET', '/organization/members/:userId/tokens', 'members:admin', ({ a }) => ({ url: `/organization/members/${a.userIds.viewer}/tokens` })),
  r('POST', '/organization/members/:userId/tokens', 'members:admin', ({ a }) => ({
    url: `/organization/members/${a.userIds.viewer}/tokens`,
    body: { name: 'delegated', permissions: ['dashboards:view'] },
  })),
  r('DELETE', '/organization/members/:userId/tokens/:id', 'members:admin', async ({ a, fresh }) => ({
    url: `/organization/members/${a.userIds.viewer}/tokens/${await fresh(() => a.make.tokenOf(a.org.tokens.viewer))}`,
  })),

  // Connections: reading them (even encrypted) needs secrets:view, changing them secrets:admin.
  r('GET', '/connections/types/list', 'public', () => ({ url: '/connections/types/list' })),
  r('GET', '/connections/types/:type/schema', 'public', () => ({ url: '/connections/types/api-key/schema' })),
  r('GET', '/connections', 'secrets:view', () => ({ url: '/connections' })),
  r('POST', '/connections', 'secrets:admin', () => ({
    url: '/connections',
    body: { name: uniqueName('conn'), type: 'api-key', config: { apiKey: 'probe-key' } },
  })),
  r('GET', '/connections/:id', 'secrets:view', ({ a }) => ({ url: `/connections/${a.connection.id}` })),
  // keepSecrets: the config's secret (apiKey) is kept, so the fixture stays valid whatever role edits it.
  r('PATCH', '/connections/:id', 'secrets:admin', ({ a }) => ({
    url: `/connections/${a.connection.id}`,
    body: { metadata: { probed: true }, config: { headerName: 'X-Probe' }, keepSecrets: true },
  })),
  r('DELETE', '/connections/:id', 'secrets:admin', async ({ a, fresh }) => ({ url: `/connections/${await fresh(a.make.connection)}` })),
  r('GET', '/connections/:id/config', 'secrets:view', ({ a }) => ({ url: `/connections/${a.connection.id}/config` })),
  r('GET', '/connections/:id/config/redacted', 'secrets:view', ({ a }) => ({ url: `/connections/${a.connection.id}/config/redacted` })),

  // Environments (README table): keys with workflows:view, values with secrets:view, changes with secrets:admin.
  r('GET', '/environments', 'workflows:view', () => ({ url: '/environments' })),
  r('POST', '/environments', 'secrets:admin', () => ({ url: '/environments', body: { name: uniqueName('env'), variables: { K: 'v' } } })),
  r('GET', '/environments/:id', 'workflows:view', ({ a }) => ({ url: `/environments/${a.environment.id}` })),
  r('PATCH', '/environments/:id', 'secrets:admin', ({ a }) => ({ url: `/environments/${a.environment.id}`, body: { description: 'probed' } })),
  r('DELETE', '/environments/:id', 'secrets:admin', async ({ a, fresh }) => ({ url: `/environments/${(await fresh(a.make.environment)).id}` })),
  r('GET', '/environments/:id/variables', 'secrets:view', ({ a }) => ({ url: `/environments/${a.environment.id}/variables` })),
  r('PUT', '/environments/:id/variables', 'secrets:admin', ({ a }) => ({
    url: `/environments/${a.environment.id}/variables`,
    body: { variables: { [a.environment.key]: a.environment.value } },
  })),
  r('PUT', '/environments/:id/variables/:key', 'secrets:admin', ({ a }) => ({
    url: `/environments/${a.environment.id}/variables/${a.environment.key}`,
    body: { value: a.environment.value },
  })),
  r('DELETE', '/environments/:id/variables/:key', 'secrets:admin', async ({ a, fresh }) => {
    const environment = await fresh(a.make.environment);
    return { url: `/environments/${environment.id}/variables/${environment.key}` };
  }),

  // Workflows, triggers, runs and executions (README table).
  r('GET', '/workflows', 'workflows:view', () => ({ url: '/workflows' })),
  // Naming an error workflow: the hostile matrix bends errorWorkflow too.
  r('POST', '/workflows', 'workflows:admin', ({ a }) => ({
    url: '/workflows',
    body: { name: uniqueName('wf'), steps: workflowSteps(), errorWorkflow: a.workflow.name },
  })),
  r('GET', '/workflows/:id', 'workflows:view', ({ a }) => ({ url: `/workflows/${a.workflow.id}` })),
  r('PUT', '/workflows/:id', 'workflows:admin', ({ a }) => ({ url: `/workflows/${a.workflow.id}`, body: { name: a.workflow.name, steps: workflowSteps() } })),
  r('DELETE', '/workflows/:id', 'workflows:admin', async ({ a, fresh }) => ({ url: `/workflows/${await fresh(a.make.workflow)}` })),
  r('PATCH', '/workflows/:id/settings', 'workflows:admin', ({ a }) => ({ url: `/workflows/${a.workflow.id}/settings`, body: { defaultEnvironment: null } })),
  r('GET', '/workflows/:id/versions', 'workflows:view', ({ a }) => ({ url: `/workflows/${a.workflow.id}/versions` })),
  r('GET', '/workflows/:id/versions/:version', 'workflows:view', ({ a }) => ({ url: `/workflows/${a.workflow.id}/versions/1` })),
  r('POST', '/workflows/:id/triggers', 'workflows:admin', ({ a }) => ({
    url: `/workflows/${a.workflow.id}/triggers`,
    body: {
      name: uniqueName('hook'),
      verification: { scheme: 'hmac', header: 'X-Signature', algorithm: 'sha512', timestampHeader: 'X-Timestamp', payload: '{timestamp}.{body}' },
      signingSecret: 'probe-signing-secret',
      deduplication: { deliveryId: { bodyField: 'event.id' }, windowSeconds: 3600 },
      traceContext: 'ignore',
    },
  })),
  r('POST', '/workflows/:id/runs', 'workflows:admin', ({ a }) => ({ url: `/workflows/${a.workflow.id}/runs`, body: { input: {}, wait: true } })),
  r('POST', '/workflows/:id/test', 'workflows:admin', ({ a }) => ({ url: `/workflows/${a.workflow.id}/test`, body: {} })),
  // Drafts are each person's own: the caller's draft is made first (for B's owner, A's owner's: B must get a 404).
  r('PUT', '/workflows/:id/draft', 'workflows:admin', ({ a }) => ({
    url: `/workflows/${a.workflow.id}/draft`,
    body: { baseVersion: 1, definition: { name: a.workflow.name, steps: workflowSteps() } },
  })),
  r('GET', '/workflows/:id/draft', 'workflows:admin', async ({ a, caller }) => ({ url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft` })),
  r('DELETE', '/workflows/:id/draft', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft`,
  })),
  r('POST', '/workflows/:id/draft/publish', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft/publish`,
    body: { force: true },
  })),
  r('PUT', '/workflows/:id/draft/pins/:stepId', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft/pins/answer`,
    body: { output: { statusCode: 200 } },
  })),
  r('DELETE', '/workflows/:id/draft/pins/:stepId', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller), { pinned: 'answer' })}/draft/pins/answer`,
  })),
  r('POST', '/workflows/:id/draft/test', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft/test`,
    body: {},
  })),
  r('POST', '/workflows/:id/draft/steps/:stepId/test', 'workflows:admin', async ({ a, caller }) => ({
    url: `/workflows/${await a.make.draftOf(tokenOfCaller(a, caller))}/draft/steps/answer/test`,
    body: {},
  })),
  r('GET', '/webhook-triggers', 'workflows:view', () => ({ url: '/webhook-triggers' })),
  r('GET', '/webhook-triggers/:id', 'workflows:view', ({ a }) => ({ url: `/webhook-triggers/${a.trigger.id}` })),
  r('PATCH', '/webhook-triggers/:id', 'workflows:admin', ({ a }) => ({
    url: `/webhook-triggers/${a.trigger.id}`,
    body: { method: 'POST', traceContext: 'honour' },
  })),
  r('DELETE', '/webhook-triggers/:id', 'workflows:admin', async ({ a, fresh }) => ({ url: `/webhook-triggers/${await fresh(a.make.trigger)}` })),
  r('POST', '/webhook-triggers/:id/secret', 'workflows:admin', ({ a }) => ({ url: `/webhook-triggers/${a.authTrigger.id}/secret` })),
  r('POST', '/webhook-triggers/:id/signing-secret', 'workflows:admin', ({ a }) => ({
    url: `/webhook-triggers/${a.authTrigger.id}/signing-secret`,
    body: { overlapSeconds: 60 },
  })),
  r('GET', '/schedule-triggers', 'workflows:view', () => ({ url: '/schedule-triggers' })),
  r('GET', '/schedule-triggers/:id', 'workflows:view', ({ a }) => ({ url: `/schedule-triggers/${a.scheduleTrigger.id}` })),
  r('PATCH', '/schedule-triggers/:id', 'workflows:admin', ({ a }) => ({ url: `/schedule-triggers/${a.scheduleTrigger.id}`, body: { paused: true } })),
  r('DELETE', '/schedule-triggers/:id', 'workflows:admin', async ({ a, fresh }) => ({ url: `/schedule-triggers/${await fresh(a.make.scheduleTrigger)}` })),
  r('GET', '/executions', 'workflows:view', () => ({ url: '/executions' })),
  r('GET', '/executions/:id', 'workflows:view', ({ a }) => ({ url: `/executions/${a.execution.id}` })),
  r('GET', '/executions/:id/steps/:stepId/input', 'workflows:view', ({ a }) => ({ url: `/executions/${a.execution.id}/steps/${a.execution.stepId}/input` })),
  r('GET', '/executions/:id/steps/:stepId/output', 'workflows:view', ({ a }) => ({ url: `/executions/${a.execution.id}/steps/${a.execution.stepId}/output` })),
  // The execution has ended: a member who may cancel gets 409 not_running, past authorization.
  r('POST', '/executions/:id/cancel', 'workflows:admin', ({ a }) => ({ url: `/executions/${a.execution.id}/cancel` })),
  r('POST', '/executions/:id/rerun', 'workflows:admin', ({ a }) => ({ url: `/executions/${a.execution.id}/rerun`, body: {} })),
  // A replay starts a new run and leaves the original as it is: nothing to make fresh.
  r('POST', '/executions/:id/replay', 'workflows:admin', ({ a }) => ({ url: `/executions/${a.execution.id}/replay`, body: { fromStepId: 'answer' } })),
  // The fixture's own request: sent again it is the same bulk (202), so every permitted call answers alike.
  r('POST', '/executions/replay', 'workflows:admin', ({ a }) => ({ url: '/executions/replay', body: a.bulkReplay.body })),
  r('GET', '/executions/replays/:bulkId', 'workflows:view', ({ a }) => ({ url: `/executions/replays/${a.bulkReplay.id}` })),
  r('POST', '/executions/:id/events/:name', 'workflows:admin', async ({ a, fresh }) => ({
    url: `/executions/${await fresh(a.make.waitingRun)}/events/go`,
    body: { approved: true },
  })),
  // The token is the credential (test/workflow-waits covers the link's refusals).
  r('POST', '/resume/:token', 'public', async ({ a, fresh }) => ({ url: await fresh(a.make.resumeLink), body: { approved: true } })),

  // Data stores (README table). Tables are named per organization: B writing A's table name writes a table of B's own.
  r('GET', '/data-stores', 'workflows:view', () => ({ url: '/data-stores' })),
  r(
    'POST',
    '/data-stores',
    'workflows:admin',
    ({ a }) => ({ url: '/data-stores', body: { tableName: a.table, key: uniqueName('ins'), value: recordValue() } }),
    dataStoreRoute,
  ),
  r('GET', '/data-stores/tables', 'workflows:view', () => ({ url: '/data-stores/tables' })),
  r('POST', '/data-stores/tables', 'workflows:admin', () => ({ url: '/data-stores/tables', body: { tableName: uniqueName('tbl') } })),
  r('GET', '/data-stores/tables/:tableName', 'workflows:view', ({ a }) => ({ url: tableIn(a) })),
  r('POST', '/data-stores/tables/:tableName', 'workflows:admin', ({ a }) => ({ url: tableIn(a), body: { key: uniqueName('up'), value: recordValue() } }), {
    ...dataStoreRoute,
    ownerOfB: createdInOwnNamespace,
  }),
  r('DELETE', '/data-stores/tables/:tableName', 'workflows:admin', async ({ a, fresh }) => ({ url: `/data-stores/tables/${await fresh(a.make.table)}` })),
  r(
    'POST',
    '/data-stores/tables/:tableName/import',
    'workflows:admin',
    ({ a }) => ({
      url: `${tableIn(a)}/import`,
      raw: { type: 'application/json', data: JSON.stringify([{ key: uniqueName('imp'), value: recordValue() }]) },
    }),
    { ...dataStoreRoute, ownerOfB: createdInOwnNamespace },
  ),
  r('GET', '/data-stores/tables/:tableName/records/:key', 'workflows:view', ({ a }) => ({ url: recordIn(a) })),
  r('PUT', '/data-stores/tables/:tableName/records/:key', 'workflows:admin', ({ a }) => ({ url: recordIn(a), body: { value: recordValue() } }), {
    ...dataStoreRoute,
    ownerOfB: createdInOwnNamespace,
  }),
  r(
    'PATCH',
    '/data-stores/tables/:tableName/records/:key',
    'workflows:admin',
    ({ a }) => ({ url: recordIn(a), body: { value: { amount: 4 } } }),
    dataStoreRoute,
  ),
  r('DELETE', '/data-stores/tables/:tableName/records/:key', 'workflows:admin', async ({ a, fresh }) => ({
    url: `${tableIn(a)}/records/${await fresh(a.make.record)}`,
  })),

  // Data sources (README: dashboards:view to read and preview, dashboards:admin to change).
  r('GET', '/dashboards/data-sources', 'dashboards:view', () => ({ url: '/dashboards/data-sources' })),
  // B names A's table: it is unknown in B (400), never a source over A's records.
  r('POST', '/dashboards/data-sources', 'dashboards:admin', ({ a }) => ({
    url: '/dashboards/data-sources',
    body: { name: uniqueName('src'), dataStoreTableName: a.table, recordSchema: DATA_SOURCE_SCHEMA },
  })),
  // B naming A's table learns nothing of its records: it is unknown in B.
  r(
    'POST',
    '/dashboards/data-sources/infer-fields',
    'dashboards:admin',
    ({ a }) => ({ url: '/dashboards/data-sources/infer-fields', body: { dataStoreTableName: a.table } }),
    { ownerOfB: (res) => (res.status === 400 && errorCode(res) === 'unknown_table' ? undefined : `expected 400 unknown_table, got ${show(res)}`) },
  ),
  r('GET', '/dashboards/data-sources/:dataSourceId', 'dashboards:view', ({ a }) => ({ url: sourceIn(a) })),
  r('PATCH', '/dashboards/data-sources/:dataSourceId', 'dashboards:admin', ({ a }) => ({ url: sourceIn(a), body: { name: 'Probed source' } })),
  r('DELETE', '/dashboards/data-sources/:dataSourceId', 'dashboards:admin', async ({ a, fresh }) => ({ url: sourceIn(a, await fresh(a.make.dataSource)) })),
  r('POST', '/dashboards/data-sources/:dataSourceId/refresh-schema', 'dashboards:admin', ({ a }) => ({ url: `${sourceIn(a)}/refresh-schema` })),
  r('POST', '/dashboards/data-sources/:dataSourceId/reindex', 'dashboards:admin', ({ a }) => ({ url: `${sourceIn(a)}/reindex` })),
  r('POST', '/dashboards/data-sources/:dataSourceId/calculated-fields', 'dashboards:admin', ({ a }) => ({
    url: `${sourceIn(a)}/calculated-fields`,
    body: calculatedFieldBody(),
  })),
  r('POST', '/dashboards/data-sources/:dataSourceId/calculated-fields/preview', 'dashboards:view', ({ a }) => ({
    url: `${sourceIn(a)}/calculated-fields/preview`,
    body: { expression: AMOUNT },
  })),
  r('PATCH', '/dashboards/data-sources/:dataSourceId/calculated-fields/:fieldId', 'dashboards:admin', ({ a }) => ({
    url: `${sourceIn(a)}/calculated-fields/${a.calculatedFieldId}`,
    body: { label: 'Probed' },
  })),
  r('DELETE', '/dashboards/data-sources/:dataSourceId/calculated-fields/:fieldId', 'dashboards:admin', async ({ a, fresh }) => ({
    url: `${sourceIn(a)}/calculated-fields/${await fresh(a.make.calculatedField)}`,
  })),
  r('POST', '/dashboards/data-sources/:dataSourceId/window-dimensions', 'dashboards:admin', ({ a }) => ({
    url: `${sourceIn(a)}/window-dimensions`,
    body: windowDimensionBody(),
  })),
  r('PATCH', '/dashboards/data-sources/:dataSourceId/window-dimensions/:fieldId', 'dashboards:admin', ({ a }) => ({
    url: `${sourceIn(a)}/window-dimensions/${a.windowDimensionId}`,
    body: { label: 'Probed' },
  })),
  r('DELETE', '/dashboards/data-sources/:dataSourceId/window-dimensions/:fieldId', 'dashboards:admin', async ({ a, fresh }) => ({
    url: `${sourceIn(a)}/window-dimensions/${await fresh(a.make.windowDimension)}`,
  })),

  // Analytics (README: dashboards:view). B naming A's source gets nothing of A's rows.
  r('GET', '/dashboards/analytics/meta', 'dashboards:view', () => ({ url: '/dashboards/analytics/meta' })),
  r('POST', '/dashboards/analytics/query', 'dashboards:view', ({ a }) => ({ url: '/dashboards/analytics/query', body: { query: query(a) } })),
  r('POST', '/dashboards/analytics/export-csv', 'dashboards:view', ({ a }) => ({
    url: '/dashboards/analytics/export-csv',
    body: { query: query(a), title: 'probe' },
  })),
  r('POST', '/dashboards/analytics/distinct-values', 'dashboards:view', ({ a }) => ({
    url: '/dashboards/analytics/distinct-values',
    body: { dataSourceId: a.dataSource.id, dimension: 'region' },
  })),

  // Shares (README "Sharing tables"): shares:admin (owners and admins) to grant or revoke, since opening the organization's
  // data to another is the organization's decision; dashboards:view to list. B's own plan lacks sharing; B naming A's share gets 404.
  r('POST', '/dashboards/shares', 'shares:admin', ({ a }) => ({
    url: '/dashboards/shares',
    body: { tableName: a.shareTable, sharedToOrganizationId: a.shareRecipient.organizationId },
  })),
  r('GET', '/dashboards/shares/granted', 'dashboards:view', () => ({ url: '/dashboards/shares/granted' })),
  r('GET', '/dashboards/shares/received', 'dashboards:view', () => ({ url: '/dashboards/shares/received' })),
  r('DELETE', '/dashboards/shares/:shareId', 'shares:admin', async ({ a, fresh }) => ({ url: `/dashboards/shares/${await fresh(a.make.share)}` })),

  // Data feeds and the proxy (README "Data feeds", "Media proxy"): dashboards:admin to toggle and sync, dashboards:view to read sync history and to proxy.
  // B naming A's connection is told it knows no such connection; B has no twilio connection to fetch A's recording through.
  r(
    'POST',
    '/dashboards/data-feeds/toggle',
    'dashboards:admin',
    ({ feed }) => ({
      url: '/dashboards/data-feeds/toggle',
      body: { feedKey: 'twilio:calls', connectionId: feed.connection.id, connectionName: feed.connection.name, enabled: true },
    }),
    { ownerOfB: (res) => (res.status === 400 && errorCode(res) === 'unknown_connection' ? undefined : `expected 400 unknown_connection, got ${show(res)}`) },
  ),
  r('GET', '/dashboards/data-feeds/catalog', 'dashboards:view', () => ({ url: '/dashboards/data-feeds/catalog' }), { sameForEveryOrganization: true }),
  r('POST', '/dashboards/data-sources/:dataSourceId/sync', 'dashboards:admin', ({ feed }) => ({
    url: `/dashboards/data-sources/${feed.sourceId}/sync`,
    body: {},
  })),
  r('PUT', '/dashboards/data-sources/:dataSourceId/connection', 'dashboards:admin', ({ feed }) => ({
    url: `/dashboards/data-sources/${feed.sourceId}/connection`,
    body: { connectionId: feed.connection.id, connectionName: feed.connection.name },
  })),
  r('GET', '/dashboards/data-sources/:dataSourceId/syncs', 'dashboards:view', ({ feed }) => ({ url: `/dashboards/data-sources/${feed.sourceId}/syncs` })),
  r(
    'GET',
    '/dashboards/proxy',
    'dashboards:view',
    ({ feed }) => ({ url: `/dashboards/proxy?url=${encodeURIComponent(`proxy+twilio:recording://${feed.recordingSid}`)}` }),
    {
      ownerOfB: (res) => (res.status === 404 && errorCode(res) === 'connection_not_found' ? undefined : `expected 404 connection_not_found, got ${show(res)}`),
    },
  ),

  // Dashboards and widgets (README "Dashboards": dashboards:view to read and run widgets, dashboards:admin to change).
  // B naming A's dashboard or widget gets 404, whatever source it names.
  r('GET', '/dashboards', 'dashboards:view', () => ({ url: '/dashboards' })),
  r('POST', '/dashboards', 'dashboards:admin', () => ({ url: '/dashboards', body: { name: uniqueName('Probe dashboard') } })),
  // No name: each call makes another Operations dashboard ("Operations 2", …). The template is no one's resource: B gets a dashboard
  // of its own, over its own built-in run sources (the leak check above it proves nothing of A's is in it).
  r('POST', '/dashboards/templates/:template', 'dashboards:admin', () => ({ url: '/dashboards/templates/operations', body: {} }), {
    ownerOfB: (res) => (res.status === 201 ? undefined : `expected 201 with B's own dashboard, got ${show(res)}`),
  }),
  r('GET', '/dashboards/:id', 'dashboards:view', ({ a }) => ({ url: dashboardIn(a) })),
  r('PATCH', '/dashboards/:id', 'dashboards:admin', ({ a }) => ({ url: dashboardIn(a), body: { description: 'probed' } })),
  r('DELETE', '/dashboards/:id', 'dashboards:admin', async ({ a, fresh }) => ({ url: dashboardIn(a, await fresh(a.make.dashboard)) })),
  r('PATCH', '/dashboards/:id/layout', 'dashboards:admin', ({ a }) => ({
    url: `${dashboardIn(a)}/layout`,
    body: { layout: [{ widgetId: a.widget.id, x: 0, y: 0, w: 6, h: 4 }] },
  })),
  r('POST', '/dashboards/:id/data', 'dashboards:view', ({ a }) => ({ url: `${dashboardIn(a)}/data`, body: {} })),
  r('POST', '/dashboards/:dashboardId/widgets', 'dashboards:admin', ({ a }) => ({ url: `${dashboardIn(a)}/widgets`, body: widgetBody(a.dataSource.id) })),
  r('PATCH', '/dashboards/widgets/:widgetId', 'dashboards:admin', ({ a }) => ({ url: widgetIn(a), body: { title: 'Probed widget' } })),
  r('DELETE', '/dashboards/widgets/:widgetId', 'dashboards:admin', async ({ a, fresh }) => ({ url: widgetIn(a, await fresh(a.make.widget)) })),
  r('POST', '/dashboards/widgets/:widgetId/data', 'dashboards:view', ({ a }) => ({ url: `${widgetIn(a)}/data`, body: {} })),
  r('POST', '/dashboards/widgets/:widgetId/export-csv', 'dashboards:view', ({ a }) => ({ url: `${widgetIn(a)}/export-csv`, body: {} })),
  r('POST', '/dashboards/:id/export-pdf', 'dashboards:view', ({ a }) => ({ url: `${dashboardIn(a)}/export-pdf`, body: { html: '<p>probe</p>' } })),
  r('GET', '/dashboards/:id/report.pdf', 'dashboards:view', ({ a }) => ({ url: `${dashboardIn(a)}/report.pdf` })),
  r('POST', '/dashboards/:id/report.pdf', 'dashboards:view', ({ a }) => ({ url: `${dashboardIn(a)}/report.pdf`, body: {} })),
  // Nothing saved; B naming A's source is told it belongs to another organization, and sees none of A's fields in the hints.
  r('POST', '/dashboards/validate', 'dashboards:view', ({ a }) => ({
    url: '/dashboards/validate',
    body: { widgets: [{ title: 'probe', chartType: 'bar', dataSourceId: a.dataSource.id, queryConfig: query(a) }] },
  })),
  r('GET', '/dashboards/:id/export', 'dashboards:view', ({ a }) => ({ url: `${dashboardIn(a)}/export` })),
  // B mapping to A's source is told it belongs to another organization (400 foreign_data_source): nothing of A's is imported.
  r(
    'POST',
    '/dashboards/import',
    'dashboards:admin',
    ({ a }) => ({ url: '/dashboards/import', raw: { type: 'application/json', data: JSON.stringify(dashboardImportBody(a.dataSource.id)) } }),
    { ownerOfB: (res) => (res.status === 400 && errorCode(res) === 'foreign_data_source' ? undefined : `expected 400 foreign_data_source, got ${show(res)}`) },
  ),

  // Packages (README "Packages"): workflows:view to read, packages:admin (roles with workflows:admin and dashboards:admin) to install and uninstall.
  // B installing a package installs it in B.
  r('GET', '/packages', 'workflows:view', () => ({ url: '/packages' })),
  r('POST', '/packages', 'packages:admin', () => ({ url: '/packages', raw: { type: 'application/json', data: JSON.stringify(packageBody()) } }), {
    ownerOfB: createdInOwnNamespace,
  }),
  r('GET', '/packages/:id', 'workflows:view', ({ a }) => ({ url: `/packages/${a.package.id}` })),
  r('DELETE', '/packages/:id', 'packages:admin', async ({ a, fresh }) => ({ url: `/packages/${await fresh(a.make.package)}` })),
];

// ---------------------------------------------------------------------------
// The fixtures the calls name.
// ---------------------------------------------------------------------------

/** A data feed of A's (twilio:calls over the vendor stubs) and a recording the proxy can fetch. */
export interface FeedFixtures {
  connection: { id: string; name: string };
  sourceId: string;
  recordingSid: string;
}

export interface RouteFixtures {
  h: Harness;
  /** Organization A, whose resources every call names. */
  A: OrgFixtures;
  /** A second organization: its owner holds every permission, but only in B. */
  B: TestOrg;
  feed: FeedFixtures;
  close(): Promise<void>;
}

/**
 * The service with a worker, vendor stubs the feed and proxy routes reach,
 * organizations A (every kind of resource, a feed) and B. The routes share
 * these fixtures: a call that destroys what it names gets a resource of its own (`fresh`).
 */
export async function startRouteFixtures(options: { isolatedDatabase?: boolean } = {}): Promise<RouteFixtures> {
  const stubs: VendorStubs = await startVendorStubs();
  const h = await startHarness({
    isolatedDatabase: options.isolatedDatabase,
    configure: (c) => {
      c.vendors.baseUrls = { ...stubs.urls };
      c.steps.httpAllowList = [...c.steps.httpAllowList, ...stubs.allowList];
    },
  });
  await h.startWorker();
  const [A, B] = await Promise.all([buildOrgFixtures(h), createTestOrg(h.services)]);
  const connection = await createConnection(h.app, A.org, { name: uniqueName('twilio'), type: 'twilio', config: stubs.twilio.connectionConfig });
  const toggled = await request(h.app)
    .post('/dashboards/data-feeds/toggle')
    .set('Authorization', `Bearer ${A.org.ownerToken}`)
    .send({ feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: true });
  if (toggled.status !== 201) throw new Error(`fixture: the feed toggle answered ${toggled.status} ${JSON.stringify(toggled.body)}`);
  const recording = stubs.twilio.addRecording({ body: Buffer.from(`recording of ${A.org.organizationId}`), contentType: 'audio/mpeg' });
  return {
    h,
    A,
    B,
    feed: { connection: { id: connection.id, name: connection.name }, sourceId: toggled.body.dataSourceId, recordingSid: recording.sid },
    close: async () => {
      await h.close();
      await stubs.close();
    },
  };
}

/** "METHOD /path" of a route case, as registeredRoutes names routes. */
export const routeKey = (c: Pick<RouteCase, 'method' | 'path'>) => `${c.method} ${c.path}`;
