import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { presentReceivedShare, presentShare } from './shares.presenter';
import { CreateShareBody, ReceivedShareSchema, ShareParams, ShareSchema } from './shares.schemas';
import type { SharesService } from './shares.service';

const tags = ['Shares'];
const BASE = '/dashboards/shares';

/**
 * Shares of data store tables (interface.md 4.6). Granting or revoking one
 * hands another organization read access to the data store, so it takes
 * `workflows:admin` (the data store write permission); the lists take
 * `dashboards:view`.
 */
export function registerShareRoutes(ctx: RouteContext, service: SharesService): void {
  defineRoute(ctx, {
    method: 'post',
    path: BASE,
    permission: 'workflows:admin',
    tags,
    body: CreateShareBody,
    summary: "Share one of the organization's data store tables read-only with another organization (the plan must include sharing)",
    responses: { 201: { description: 'The share', schema: ShareSchema } },
    handler: async ({ auth, body }) => ({ status: 201, body: presentShare(await service.create(auth.organizationId, auth.userId, body)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: `${BASE}/granted`,
    permission: 'dashboards:view',
    tags,
    summary: 'Active shares this organization granted, newest first',
    responses: { 200: { description: 'Shares', schema: z.array(ShareSchema) } },
    handler: async ({ auth }) => ({ status: 200, body: (await service.listGranted(auth.organizationId)).map(presentShare) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: `${BASE}/received`,
    permission: 'dashboards:view',
    tags,
    summary: 'Active shares other organizations granted this one, newest first, with what each table holds (analyticsTag)',
    responses: { 200: { description: 'Shares', schema: z.array(ReceivedShareSchema) } },
    handler: async ({ auth }) => ({
      status: 200,
      body: (await service.listReceived(auth.organizationId)).map(({ share, analyticsTag }) => presentReceivedShare(share, analyticsTag)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: `${BASE}/:shareId`,
    permission: 'workflows:admin',
    tags,
    params: ShareParams,
    summary:
      "Revoke a share at once (the granting organization), or remove a received one (the recipient): the recipient's reads, sources and widgets over the table fail from now on",
    responses: { 200: { description: 'Revoked', schema: z.object({ revoked: z.literal(true) }) } },
    handler: async ({ auth, params }) => {
      await service.revoke(auth.organizationId, params.shareId);
      return { status: 200, body: { revoked: true } };
    },
  });
}
