import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import {
  CreateEnvironmentBody,
  EnvironmentIdParams,
  EnvironmentSchema,
  EnvironmentValuesQuery,
  EnvironmentValuesSchema,
  ReplaceVariablesBody,
  SetVariableBody,
  UpdateEnvironmentBody,
  VariableParams,
} from './environments.schemas';
import { presentEnvironment } from './environments.presenter';
import type { EnvironmentsService } from './environments.service';

const tags = ['Environments'];

export function registerEnvironmentRoutes(ctx: RouteContext, service: EnvironmentsService): void {
  const one = { 200: { description: 'Environment (variable keys only)', schema: EnvironmentSchema } };

  defineRoute(ctx, {
    method: 'get',
    path: '/environments',
    permission: 'workflows:view',
    tags,
    query: PageQuery,
    summary: 'List environments with their variable keys (no values)',
    responses: { 200: { description: 'Environments', schema: z.object({ total: z.number().int(), data: z.array(EnvironmentSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.list(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentEnvironment) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/environments',
    permission: 'secrets:admin',
    tags,
    body: CreateEnvironmentBody,
    summary: 'Create an environment, optionally with variables',
    responses: { 201: { description: 'Created', schema: EnvironmentSchema } },
    handler: async ({ auth, body }) => ({ status: 201, body: presentEnvironment(await service.create(auth.organizationId, body)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/environments/:id',
    permission: 'workflows:view',
    tags,
    params: EnvironmentIdParams,
    summary: 'Read an environment (variable keys only)',
    responses: one,
    handler: async ({ auth, params }) => ({ status: 200, body: presentEnvironment(await service.get(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/environments/:id',
    permission: 'secrets:admin',
    tags,
    params: EnvironmentIdParams,
    body: UpdateEnvironmentBody,
    summary: 'Rename or describe an environment',
    responses: one,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentEnvironment(await service.update(auth.organizationId, params.id, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/environments/:id',
    permission: 'secrets:admin',
    tags,
    params: EnvironmentIdParams,
    summary: 'Delete an environment and its variables',
    responses: { 200: { description: 'The deleted environment', schema: EnvironmentSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentEnvironment(await service.delete(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/environments/:id/variables',
    permission: 'secrets:view',
    tags,
    params: EnvironmentIdParams,
    query: EnvironmentValuesQuery,
    summary: 'Decrypted variable values (plaintext); `secrets=omit` leaves the secret ones out',
    responses: { 200: { description: 'KEY to plaintext value', schema: EnvironmentValuesSchema } },
    handler: async ({ auth, params, query }, _req, res) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await service.values(auth.organizationId, params.id, { secrets: query.secrets }) };
    },
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/environments/:id/variables',
    permission: 'secrets:admin',
    tags,
    params: EnvironmentIdParams,
    body: ReplaceVariablesBody,
    summary: 'Replace all variables (keys left out are removed)',
    responses: one,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentEnvironment(await service.replaceVariables(auth.organizationId, params.id, body.variables)),
    }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/environments/:id/variables/:key',
    permission: 'secrets:admin',
    tags,
    params: VariableParams,
    body: SetVariableBody,
    summary: 'Set one variable',
    responses: one,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentEnvironment(await service.setVariable(auth.organizationId, params.id, params.key, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/environments/:id/variables/:key',
    permission: 'secrets:admin',
    tags,
    params: VariableParams,
    summary: 'Remove one variable',
    responses: one,
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentEnvironment(await service.deleteVariable(auth.organizationId, params.id, params.key)),
    }),
  });
}
