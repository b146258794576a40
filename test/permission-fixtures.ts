import request from 'supertest';
import type { Express } from 'express';
import { ROLES, type Role } from '../src/auth/roles';
import { as, type Harness } from './harness';
import { returnStep, workflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';

/**
 * Real resources of one organization, built through the API, for the
 * permission matrix: one of each kind for the probes that only read or
 * change it, and makers for the probes that destroy what they name.
 */

type Json = Record<string, any>;

/** Fails naming the call and its answer unless the status is the one expected; returns the body. */
async function expectOk(call: request.Test, status: number): Promise<Json> {
  const { method, url } = call as unknown as { method: string; url: string };
  const res = await call;
  if (res.status !== status) {
    throw new Error(`fixture ${method} ${url} answered ${res.status} (expected ${status}): ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  return res.body;
}

export const DATA_SOURCE_SCHEMA = {
  name: 'Orders',
  fields: {
    placedAt: { type: 'date', label: 'Placed at', timeDimension: true },
    amount: { type: 'number', label: 'Amount', measure: true },
    region: { type: 'string', label: 'Region' },
  },
};
export const AMOUNT = { type: 'Identifier', name: 'amount' };
export const calculatedFieldBody = () => ({
  name: uniqueName('calc'),
  label: 'Double',
  type: 'number',
  expression: { type: 'BinaryExpression', operator: '*', left: AMOUNT, right: { type: 'Literal', value: 2 } },
});
export const windowDimensionBody = () => ({ name: uniqueName('seq'), label: 'Seq', function: 'row_number', partitionBy: ['region'], orderBy: 'placedAt' });
/** A record value without the organization's marker: writes by any caller may use it. */
export const recordValue = () => ({ placedAt: '2024-01-05T10:00:00Z', amount: 3, region: 'probe' });
/** A widget over the source: its count by region, as a bar chart. */
export const widgetBody = (dataSourceId: string) => {
  const cube = `ds_${dataSourceId.replace(/-/g, '_')}`;
  return { title: 'Probe widget', chartType: 'bar', dataSourceId, queryConfig: { measures: [`${cube}.count`], dimensions: [`${cube}.region`] } };
};
export const workflowSteps = () => [returnStep('answer', { ok: true })];
/** A package file (uniquely named, or named `name`) with one workflow, uniquely named: the body of POST /packages. */
export const packageBody = (name = uniqueName('probe-kit')) => ({
  manifest: { name, version: '1.0.0' },
  workflows: [{ name: uniqueName('pkg-wf'), steps: workflowSteps() }],
});
/** A dashboard export payload (uniquely named) with one widget over the source `src`, mapped to `dataSourceId`: the body of POST /dashboards/import. */
export const dashboardImportBody = (dataSourceId: string) => ({
  format: 'flowbase.dashboard',
  version: 1,
  dashboard: { name: uniqueName('Imported'), layout: [{ widget: 'w1', x: 0, y: 0, w: 6, h: 4 }] },
  widgets: [{ key: 'w1', title: 'Count', chartType: 'bar', dataSource: 'src', queryConfig: { measures: ['$src.count'], dimensions: ['$src.region'] } }],
  dataSources: [{ exportId: 'src', name: 'Orders', type: 'custom', dataStoreTableName: 'orders', recordSchema: DATA_SOURCE_SCHEMA }],
  dataSourceMappings: { src: dataSourceId },
});

/** An organization's own LLM price for `model` (the body of PUT /organization/llm-prices). */
export const llmPriceBody = (model: string) => ({
  entries: [{ provider: 'openai', model, inputPerMillion: 1.5, outputPerMillion: 6, currency: 'USD', since: '2026-01-01' }],
});

export interface OrgFixtures {
  org: TestOrg;
  name: string;
  userIds: Record<Role, string>;
  /** A viewer no probe acts as: PATCH /organization/members/{userId} targets them. */
  spareMemberId: string;
  connection: { id: string; apiKey: string };
  environment: { id: string; key: string; value: string };
  workflow: { id: string; name: string };
  /** Authentication off, so the webhook host answers without a token. */
  trigger: { id: string; name: string; path: string };
  /** Authentication on and an hmac signature scheme, so both its secrets can be rotated. */
  authTrigger: { id: string };
  /** A paused schedule trigger (a cron once a day), so probes never start runs. */
  scheduleTrigger: { id: string };
  execution: { id: string; stepId: string };
  /** A bulk replay of the execution from its `answer` step, and the request that made it (sent again, the same bulk: 202). */
  bulkReplay: { id: string; body: Record<string, unknown> };
  table: string;
  recordKey: string;
  dataSource: { id: string; cube: string };
  calculatedFieldId: string;
  windowDimensionId: string;
  /** A dashboard (named with the marker) with one widget over the data source, placed on its grid. */
  dashboard: { id: string };
  widget: { id: string };
  /** An installed package (named with the marker) holding one workflow. */
  package: { id: string };
  /** A table of its own that POST /dashboards/shares probes share with `shareRecipient` (A is on a plan that includes sharing). */
  shareTable: string;
  shareRecipient: TestOrg;
  /** A model (named with the marker) that A prices itself: PUT /organization/llm-prices probes send it again. */
  llmPriceModel: string;
  /** Strings only this organization's data holds: an outsider's answer must contain none of them. */
  own: string[];
  make: Makers;
}

export interface Makers {
  connection(): Promise<string>;
  environment(): Promise<{ id: string; key: string }>;
  workflow(): Promise<string>;
  trigger(): Promise<string>;
  scheduleTrigger(): Promise<string>;
  table(): Promise<string>;
  record(): Promise<string>;
  dataSource(): Promise<string>;
  calculatedField(): Promise<string>;
  windowDimension(): Promise<string>;
  dashboard(): Promise<string>;
  /** A widget on the fixture dashboard. */
  widget(): Promise<string>;
  /** An installed package of its own (so uninstalling it touches no other fixture). */
  package(): Promise<string>;
  invitation(): Promise<{ id: string; code: string }>;
  /** A member who joined by invitation, as a viewer. */
  member(): Promise<string>;
  /** A token minted with `token` (so revoking it leaves `token` working). */
  tokenOf(token: string): Promise<string>;
  /** The draft of the fixture workflow of `token`'s user (a draft is a person's own), with a step's output pinned; a role that may not edit gets none. */
  draftOf(token: string, options?: { pinned?: string }): Promise<string>;
  /** An active share of a table of its own with the share recipient. */
  share(): Promise<string>;
  /** A run of its own parked at a core.wait step for the event `go` (sending it resumes the run, so each success needs a new one). */
  waitingRun(): Promise<string>;
  /** The path of the resume link of a new waiting run's `gate` step. */
  resumeLink(): Promise<string>;
}

/**
 * Organization A of the matrix: every kind of resource, with values marked so
 * that a leak to another organization is recognizable. Needs a running worker
 * (the execution is a real run).
 */
export async function buildOrgFixtures(h: Harness): Promise<OrgFixtures> {
  const app: Express = h.app;
  const [org, shareRecipient] = await Promise.all([createTestOrg(h.services, 'business'), createTestOrg(h.services)]);
  const owner = () => as(app, org.ownerToken);
  const a = workflowApi(app, org);
  const marker = uniqueName('only_in_a');

  const members = (await expectOk(owner().get('/organization/members'), 200)).data as Json[];
  const userIds = Object.fromEntries(ROLES.map((role) => [role, members.find((m) => m.email.startsWith(`${role}-`))!.userId])) as Record<Role, string>;
  const name = (await expectOk(owner().get('/organization'), 200)).name as string;

  let waitingWorkflow: Promise<{ id: string }> | undefined;
  const make: Makers = {
    waitingRun: async () => {
      waitingWorkflow ??= a.createWorkflow([{ stepId: 'gate', stepType: 'core.wait', input: { event: { name: 'go' } } }]);
      const { executionId } = await expectOk(
        owner()
          .post(`/workflows/${(await waitingWorkflow).id}/runs`)
          .send({ input: {} }),
        202,
      );
      await eventually(
        () => a.readExecution(executionId),
        (e) => e.status === 'waiting',
        20_000,
      );
      return executionId as string;
    },
    resumeLink: async () => `/resume/${h.services.resumeLinks.token(await make.waitingRun(), 'gate')}`,
    connection: async () =>
      (
        await expectOk(
          owner()
            .post('/connections')
            .send({ name: uniqueName('conn'), type: 'api-key', config: { apiKey: `${marker}_key` } }),
          201,
        )
      ).id,
    environment: async () => {
      const key = 'API_KEY';
      const body = await expectOk(
        owner()
          .post('/environments')
          .send({ name: uniqueName('env'), variables: { [key]: `${marker}_env` } }),
        201,
      );
      return { id: body.id, key };
    },
    workflow: async () => (await a.createWorkflow(workflowSteps())).id,
    trigger: async () => (await a.createTrigger(workflow.id)).id,
    scheduleTrigger: async () =>
      (
        await expectOk(
          owner()
            .post(`/workflows/${workflow.id}/triggers`)
            .send({ type: 'schedule', name: uniqueName(`${marker}_sched`), schedule: { cron: '0 3 * * *' }, paused: true }),
          201,
        )
      ).id,
    table: async () => {
      const table = uniqueName('tbl');
      await expectOk(
        owner()
          .post(`/data-stores/tables/${table}`)
          .send({ key: 'k', value: { ...recordValue(), region: marker } }),
        201,
      );
      return table;
    },
    record: async () => {
      const key = uniqueName('rec');
      await expectOk(
        owner()
          .put(`/data-stores/tables/${table}/records/${key}`)
          .send({ value: { ...recordValue(), region: marker } }),
        201,
      );
      return key;
    },
    dataSource: async () =>
      (
        await expectOk(
          owner()
            .post('/dashboards/data-sources')
            .send({ name: uniqueName('src'), dataStoreTableName: table, recordSchema: DATA_SOURCE_SCHEMA }),
          201,
        )
      ).id,
    calculatedField: async () =>
      (await expectOk(owner().post(`/dashboards/data-sources/${dataSourceId}/calculated-fields`).send(calculatedFieldBody()), 201)).id,
    windowDimension: async () =>
      (await expectOk(owner().post(`/dashboards/data-sources/${dataSourceId}/window-dimensions`).send(windowDimensionBody()), 201)).id,
    dashboard: async () =>
      (
        await expectOk(
          owner()
            .post('/dashboards')
            .send({ name: uniqueName(`${marker}_dash`) }),
          201,
        )
      ).id,
    widget: async () => (await expectOk(owner().post(`/dashboards/${dashboardId}/widgets`).send(widgetBody(dataSourceId)), 201)).id,
    package: async () =>
      (
        await expectOk(
          owner()
            .post('/packages')
            .set('Content-Type', 'application/json')
            .send(JSON.stringify(packageBody(uniqueName(`${marker}-kit`)))),
          201,
        )
      ).package.id,
    invitation: async () => {
      const body = await expectOk(
        owner()
          .post('/organization/invitations')
          .send({ email: `${uniqueName('invited')}@example.test`, role: 'viewer' }),
        201,
      );
      return { id: body.id, code: body.code };
    },
    member: async () => {
      const { code } = await make.invitation();
      return (await expectOk(request(app).post('/invitations/accept').send({ code }), 201)).userId;
    },
    share: async () =>
      (
        await expectOk(
          owner()
            .post('/dashboards/shares')
            .send({ tableName: await make.table(), sharedToOrganizationId: shareRecipient.organizationId, alias: uniqueName('shared') }),
          201,
        )
      ).id,
    draftOf: async (token, options = {}) => {
      const { version } = (await owner().get(`/workflows/${workflow.id}`)).body as { version: number };
      await as(app, token)
        .put(`/workflows/${workflow.id}/draft`)
        .send({ baseVersion: version, definition: { name: workflow.name, steps: workflowSteps() } });
      if (options.pinned)
        await as(app, token)
          .put(`/workflows/${workflow.id}/draft/pins/${options.pinned}`)
          .send({ output: { statusCode: 200 } });
      return workflow.id;
    },
    tokenOf: async (token) =>
      (
        await expectOk(
          as(app, token)
            .post('/tokens')
            .send({ name: uniqueName('tok') }),
          201,
        )
      ).id,
  };

  const connectionId = await make.connection();
  const environment = await make.environment();
  const workflow = await a.createWorkflow(workflowSteps());
  const trigger = await a.createTrigger(workflow.id);
  const authTrigger = await a.createTrigger(workflow.id, { authentication: true, verification: { scheme: 'hmac', header: 'X-Signature' } });
  const scheduleTriggerId = await make.scheduleTrigger();
  const execution = await a.runAndWait(workflow.id, { probe: marker });
  // Only runs up to the fixture's: the probes' own runs of the workflow never join the bulk.
  const bulkReplayBody = {
    filter: { workflowId: workflow.id, startedBefore: new Date(Date.parse(execution.startedAt) + 1).toISOString() },
    fromStepId: 'answer',
    dryRun: false,
  };
  const bulkReplayId = (await expectOk(owner().post('/executions/replay').send(bulkReplayBody), 202)).bulkId as string;
  const table = await make.table();
  const recordKey = await make.record();
  const dataSourceId = await make.dataSource();
  const calculatedFieldId = await make.calculatedField();
  const windowDimensionId = await make.windowDimension();
  const dashboardId = await make.dashboard();
  const widgetId = await make.widget();
  const packageId = await make.package();
  const spareMemberId = await make.member();
  const openInvitation = await make.invitation();
  const shareTable = await make.table();
  // One share each way, so both share lists have something of A's to show (or leak).
  await make.share();
  const sharer = await createTestOrg(h.services, 'business');
  const sharerTable = uniqueName('for_a');
  await expectOk(as(app, sharer.ownerToken).post(`/data-stores/tables/${sharerTable}`).send({ key: 'k', value: recordValue() }), 201);
  await expectOk(as(app, sharer.ownerToken).post('/dashboards/shares').send({ tableName: sharerTable, sharedToOrganizationId: org.organizationId }), 201);
  const cube = `ds_${dataSourceId.replace(/-/g, '_')}`;
  const llmPriceModel = `${marker}_model`;
  await expectOk(owner().put('/organization/llm-prices').send(llmPriceBody(llmPriceModel)), 200);

  return {
    org,
    name,
    userIds,
    spareMemberId,
    connection: { id: connectionId, apiKey: `${marker}_key` },
    environment: { ...environment, value: `${marker}_env` },
    workflow,
    trigger: { id: trigger.id, name: trigger.name, path: trigger.path },
    authTrigger: { id: authTrigger.id },
    scheduleTrigger: { id: scheduleTriggerId },
    execution: { id: execution.id, stepId: 'answer' },
    bulkReplay: { id: bulkReplayId, body: bulkReplayBody },
    table,
    recordKey,
    dataSource: { id: dataSourceId, cube },
    calculatedFieldId,
    windowDimensionId,
    dashboard: { id: dashboardId },
    widget: { id: widgetId },
    package: { id: packageId },
    shareTable,
    shareRecipient,
    llmPriceModel,
    own: [
      marker,
      org.organizationId,
      org.organizationSuid,
      ...Object.values(userIds),
      spareMemberId,
      connectionId,
      environment.id,
      workflow.id,
      workflow.name,
      scheduleTriggerId,
      trigger.id,
      trigger.name,
      authTrigger.id,
      execution.id,
      bulkReplayId,
      dataSourceId,
      cube,
      calculatedFieldId,
      windowDimensionId,
      dashboardId,
      widgetId,
      packageId,
      openInvitation.id,
      // Names B may also use in its own namespace: the matrix sends them only in calls whose traces it removes (data store routes).
      table,
      recordKey,
    ],
    make,
  };
}
