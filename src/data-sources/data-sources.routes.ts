import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import {
  CalculatedField,
  CalculatedFieldBody,
  CalculatedFieldPatch,
  CreateDataSourceBody,
  DataSourceParams,
  DataSourceSchema,
  InferFieldsBody,
  InferredFields,
  MemberParams,
  PatchDataSourceBody,
  PreviewBody,
  WindowDimension,
  WindowDimensionBody,
  WindowDimensionPatch,
} from './data-sources.schemas';
import { presentDataSource } from './data-sources.presenter';
import type { DataSourcesService } from './data-sources.service';
import type { SourceMembersService } from './source-members.service';

const tags = ['Data sources'];
const BASE = '/dashboards/data-sources';
const Deleted = z.object({ deleted: z.literal(true) });

/** Data sources (interface.md 4.5): reads need dashboards:view, changes dashboards:admin. */
export function registerDataSourceRoutes(ctx: RouteContext, service: DataSourcesService, members: SourceMembersService): void {
  const one = { description: 'The data source', schema: DataSourceSchema };

  defineRoute(ctx, {
    method: 'get',
    path: BASE,
    permission: 'dashboards:view',
    tags,
    summary: 'Data sources of the organization, newest first',
    responses: { 200: { description: 'Data sources', schema: z.array(DataSourceSchema) } },
    handler: async ({ auth }) => ({ status: 200, body: (await service.list(auth.organizationId)).map(presentDataSource) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: BASE,
    permission: 'dashboards:admin',
    tags,
    body: CreateDataSourceBody,
    summary: 'Create a data source over a data store table; its serving relation is built from the records at once',
    responses: { 201: one },
    handler: async ({ auth, body }) => ({ status: 201, body: presentDataSource(await service.create(auth.organizationId, auth.userId, body)) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/infer-fields`,
    permission: 'dashboards:admin',
    tags,
    body: InferFieldsBody,
    summary: 'The fields a new source over a table would have, inferred from its newest 1000 records; nothing is saved',
    responses: { 201: { description: 'The inferred fields', schema: InferredFields } },
    handler: async ({ auth, body }) => {
      const { fields, skipped, sampled } = await service.inferFields(auth.organizationId, body);
      return { status: 201, body: { fields, skippedFields: skipped, sampledRecords: sampled } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: `${BASE}/:dataSourceId`,
    permission: 'dashboards:view',
    tags,
    params: DataSourceParams,
    summary: 'One data source',
    responses: { 200: one },
    handler: async ({ auth, params }) => ({ status: 200, body: presentDataSource(await service.get(auth.organizationId, params.dataSourceId)) }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: `${BASE}/:dataSourceId`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    body: PatchDataSourceBody,
    summary: 'Rename, enable or disable, or replace the record schema (a new time dimension needs confirmTimeFieldRekey)',
    responses: { 200: one },
    handler: async ({ auth, params, body }) => ({ status: 200, body: presentDataSource(await service.update(auth.organizationId, params.dataSourceId, body)) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: `${BASE}/:dataSourceId`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    summary: 'Delete the source and its serving relation (the records stay)',
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ auth, params }) => {
      await service.delete(auth.organizationId, params.dataSourceId);
      return { status: 200, body: { deleted: true } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/:dataSourceId/refresh-schema`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    summary: 'Add fields found in sampled records; flags, labels and calculated fields are kept',
    responses: {
      201: {
        description:
          'The data source with `addedFields` and `skippedFields` (names that are not identifiers), or `{refreshed: false, message}` when the table has no records',
        schema: z.union([
          DataSourceSchema.extend({ addedFields: z.array(z.string()), skippedFields: z.array(z.string()) }),
          z.object({ refreshed: z.literal(false), message: z.string() }),
        ]),
      },
    },
    handler: async ({ auth, params }) => {
      const outcome = await service.refreshSchema(auth.organizationId, params.dataSourceId);
      if (!outcome.refreshed) return { status: 201, body: { refreshed: false, message: outcome.message } };
      return { status: 201, body: { ...presentDataSource(outcome.source), addedFields: outcome.added, skippedFields: outcome.skipped } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/:dataSourceId/reindex`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    summary: 'Drop and recreate the analytics indexes; the data is unchanged',
    responses: { 201: { description: 'Done', schema: z.object({ reindexed: z.literal(true) }) } },
    handler: async ({ auth, params }) => {
      await service.reindex(auth.organizationId, params.dataSourceId);
      return { status: 201, body: { reindexed: true } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/:dataSourceId/calculated-fields`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    body: CalculatedFieldBody,
    summary: 'Add a calculated field (arithmetic over number fields)',
    responses: { 201: { description: 'The calculated field', schema: CalculatedField } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await members.addCalculatedField(auth.organizationId, params.dataSourceId, body) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/:dataSourceId/calculated-fields/preview`,
    permission: 'dashboards:view',
    tags,
    params: DataSourceParams,
    body: PreviewBody,
    summary: 'Evaluate an expression over the first rows of the source (key order); nothing is saved',
    responses: {
      201: {
        description: 'One value per row; null where an operand is null or a divisor is zero',
        schema: z.object({ values: z.array(z.number().nullable()) }),
      },
    },
    handler: async ({ auth, params, body }) => ({
      status: 201,
      body: { values: await members.previewExpression(auth.organizationId, params.dataSourceId, body.expression) },
    }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: `${BASE}/:dataSourceId/calculated-fields/:fieldId`,
    permission: 'dashboards:admin',
    tags,
    params: MemberParams,
    body: CalculatedFieldPatch,
    summary: 'Change a calculated field; renaming does not rewrite widgets',
    responses: { 200: { description: 'The calculated field', schema: CalculatedField } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: await members.updateCalculatedField(auth.organizationId, params.dataSourceId, params.fieldId, body),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: `${BASE}/:dataSourceId/calculated-fields/:fieldId`,
    permission: 'dashboards:admin',
    tags,
    params: MemberParams,
    summary: 'Delete a calculated field; widgets naming it match nothing afterwards',
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ auth, params }) => {
      await members.deleteCalculatedField(auth.organizationId, params.dataSourceId, params.fieldId);
      return { status: 200, body: { deleted: true } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: `${BASE}/:dataSourceId/window-dimensions`,
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    body: WindowDimensionBody,
    summary: 'Add a window dimension (row_number over the whole source)',
    responses: { 201: { description: 'The window dimension', schema: WindowDimension } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await members.addWindowDimension(auth.organizationId, params.dataSourceId, body) }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: `${BASE}/:dataSourceId/window-dimensions/:fieldId`,
    permission: 'dashboards:admin',
    tags,
    params: MemberParams,
    body: WindowDimensionPatch,
    summary: 'Change a window dimension',
    responses: { 200: { description: 'The window dimension', schema: WindowDimension } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: await members.updateWindowDimension(auth.organizationId, params.dataSourceId, params.fieldId, body),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: `${BASE}/:dataSourceId/window-dimensions/:fieldId`,
    permission: 'dashboards:admin',
    tags,
    params: MemberParams,
    summary: 'Delete a window dimension',
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ auth, params }) => {
      await members.deleteWindowDimension(auth.organizationId, params.dataSourceId, params.fieldId);
      return { status: 200, body: { deleted: true } };
    },
  });
}
