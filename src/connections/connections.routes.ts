import { NotFoundError } from '../errors/errors';
import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { ConnectionIdParams, ConnectionSchema, CreateConnectionBody, RedactedConfigSchema, TypeParams, UpdateConnectionBody } from './connections.schemas';
import { presentConnection } from './connections.presenter';
import type { ConnectionsService } from './connections.service';
import { type ConnectionTypeCatalog } from './types/catalog';

const tags = ['Connections'];

export function registerConnectionRoutes(ctx: RouteContext, service: ConnectionsService, catalog: ConnectionTypeCatalog): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/connections/types/list',
    tags,
    summary: 'Connection types',
    responses: { 200: { description: 'Type identifiers', schema: z.object({ types: z.array(z.string()) }) } },
    handler: async () => ({ status: 200, body: { types: catalog.list() } }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/connections/types/:type/schema',
    tags,
    params: TypeParams,
    summary: 'JSON Schema (draft-07) of a connection type config',
    responses: {
      200: { description: 'Schema', schema: z.object({ type: z.string(), schema: z.record(z.string(), z.unknown()) }) },
      404: { description: 'Unknown type' },
    },
    handler: async ({ params }) => {
      const schema = catalog.schema(params.type);
      if (!schema) throw new NotFoundError('Connection type');
      return { status: 200, body: { type: params.type, schema } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/connections',
    permission: 'secrets:view',
    tags,
    query: PageQuery,
    summary: 'List connections, newest first',
    responses: { 200: { description: 'Connections', schema: z.object({ total: z.number().int(), data: z.array(ConnectionSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.list(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentConnection) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/connections',
    permission: 'secrets:admin',
    tags,
    body: CreateConnectionBody,
    summary: 'Create a connection; config is validated against its type schema, then encrypted',
    responses: { 201: { description: 'Created', schema: ConnectionSchema } },
    handler: async ({ auth, body }) => ({
      status: 201,
      body: presentConnection(await service.create(auth.organizationId, auth.userId, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/connections/:id',
    permission: 'secrets:view',
    tags,
    params: ConnectionIdParams,
    summary: 'Read a connection (config stays encrypted)',
    responses: { 200: { description: 'Connection', schema: ConnectionSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentConnection(await service.get(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/connections/:id',
    permission: 'secrets:admin',
    tags,
    params: ConnectionIdParams,
    body: UpdateConnectionBody,
    summary: 'Update name, config (replaced whole, or with keepSecrets its secrets left out kept), settings or metadata',
    responses: { 200: { description: 'Updated', schema: ConnectionSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentConnection(await service.update(auth.organizationId, params.id, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/connections/:id',
    permission: 'secrets:admin',
    tags,
    params: ConnectionIdParams,
    summary: 'Delete a connection; steps that use it fail at run time',
    responses: { 200: { description: 'The deleted connection', schema: ConnectionSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentConnection(await service.delete(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/connections/:id/config',
    permission: 'secrets:view',
    tags,
    params: ConnectionIdParams,
    summary: 'The decrypted config (plaintext credentials)',
    responses: { 200: { description: 'Decrypted config, keyed as the type declares', schema: z.record(z.string(), z.unknown()) } },
    handler: async ({ auth, params }, _req, res) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await service.decryptedConfig(auth.organizationId, params.id) };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/connections/:id/config/redacted',
    permission: 'secrets:view',
    tags,
    params: ConnectionIdParams,
    summary:
      "The config without its secrets, for an edit form: the values of the fields the type's schema does not mark write-only, and the names of the write-only fields that are set (never their values)",
    responses: { 200: { description: 'The redacted config', schema: RedactedConfigSchema } },
    handler: async ({ auth, params }, _req, res) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await service.redactedConfig(auth.organizationId, params.id) };
    },
  });
}
