import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { SaveWorkflowBody, VersionParams, WorkflowIdParams, WorkflowSchema, WorkflowSettings, WorkflowVersionSchema } from './workflows.schemas';
import { presentVersion, presentWorkflow } from './workflows.presenter';
import type { WorkflowsService } from './workflows.service';
import { inWrittenOrder } from './written-order';

const tags = ['Workflows'];

export function registerWorkflowRoutes(ctx: RouteContext, service: WorkflowsService): void {
  const one = { 200: { description: 'The workflow with its current definition', schema: WorkflowSchema } };

  defineRoute(ctx, {
    method: 'get',
    path: '/workflows',
    permission: 'workflows:view',
    tags,
    query: PageQuery,
    summary: 'List workflows by name, each with its current definition',
    responses: { 200: { description: 'Workflows', schema: z.object({ total: z.number().int(), data: z.array(WorkflowSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.list(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentWorkflow) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows',
    permission: 'workflows:admin',
    tags,
    body: SaveWorkflowBody,
    summary: 'Create a workflow from its definition JSON (interface.md 2.1), pasted as is; version 1',
    responses: { 201: { description: 'Created', schema: WorkflowSchema } },
    handler: async ({ auth, body: { settings, ...definition } }, req) => ({
      status: 201,
      body: presentWorkflow(await service.create(auth.organizationId, auth.userId, inWrittenOrder(definition, req.body), settings)),
    }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/workflows/:id',
    permission: 'workflows:view',
    tags,
    params: WorkflowIdParams,
    summary: 'Read a workflow and its current definition',
    responses: one,
    handler: async ({ auth, params }) => ({ status: 200, body: presentWorkflow(await service.get(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/workflows/:id',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: SaveWorkflowBody,
    summary: 'Replace the definition: stored as the next version; runs already started keep theirs',
    responses: one,
    handler: async ({ auth, params, body: { settings, ...definition } }, req) => ({
      status: 200,
      body: presentWorkflow(await service.update(auth.organizationId, auth.userId, params.id, inWrittenOrder(definition, req.body), settings)),
    }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/workflows/:id/settings',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: WorkflowSettings,
    summary: 'Change settings (default environment); no new version',
    responses: one,
    handler: async ({ auth, params, body }) => ({ status: 200, body: presentWorkflow(await service.updateSettings(auth.organizationId, params.id, body)) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/workflows/:id',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    summary: 'Delete a workflow, its versions and its triggers',
    responses: { 200: { description: 'The deleted workflow', schema: WorkflowSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentWorkflow(await service.delete(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/workflows/:id/versions',
    permission: 'workflows:view',
    tags,
    params: WorkflowIdParams,
    query: PageQuery,
    summary: 'Versions of a workflow, newest first',
    responses: { 200: { description: 'Versions', schema: z.object({ total: z.number().int(), data: z.array(WorkflowVersionSchema) }) } },
    handler: async ({ auth, params, query }) => {
      const { total, data } = await service.listVersions(auth.organizationId, params.id, query);
      return { status: 200, body: { total, data: data.map(presentVersion) } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/workflows/:id/versions/:version',
    permission: 'workflows:view',
    tags,
    params: VersionParams,
    summary: 'One version of a workflow',
    responses: { 200: { description: 'The version', schema: WorkflowVersionSchema } },
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentVersion(await service.getVersion(auth.organizationId, params.id, params.version)),
    }),
  });
}
