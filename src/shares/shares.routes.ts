import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { presentGrantedShare, presentReceivedShare } from './shares.presenter';
import { CreateShareBody, GrantedShareSchema, ReceivedShareSchema, ShareParams } from './shares.schemas';
import type { SharesService } from './shares.service';

const tags = ['Shares'];
const BASE = '/dashboards/shares';

/**
 * Shares of data store tables (interface.md 4.6). Granting or revoking one
 * opens the organization's data to another organization, which is the
 * organization's decision: it takes `shares:admin` (owners and admins). The
 * lists take `dashboards:view`.
 */
export function registerShareRoutes(ctx: RouteContext, service: SharesService): void {
  defineRoute(ctx, {
    method: 'post',
    path: BASE,
    permission: 'shares:admin',
    tags,
    body: CreateShareBody,
    summary: "Share one of the organization's data store tables read-only with another organization (the plan must include sharing)",
    responses: { 201: { description: 'The share', schema: GrantedShareSchema } },
    handler: async ({ auth, body }) => {
      const { share, grantedBy } = await service.create(auth.organizationId, auth.userId, body);
      return { status: 201, body: presentGrantedShare(share, grantedBy) };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: `${BASE}/granted`,
    permission: 'dashboards:view',
    tags,
    summary: 'Active shares this organization granted, newest first, each with the member who granted it',
    responses: { 200: { description: 'Shares', schema: z.array(GrantedShareSchema) } },
    handler: async ({ auth }) => ({
      status: 200,
      body: (await service.listGranted(auth.organizationId)).map(({ share, grantedBy }) => presentGrantedShare(share, grantedBy)),
    }),
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
      body: (await service.listReceived(auth.organizationId)).map(({ share, analyticsTag, shadowedBy }) =>
        presentReceivedShare(share, analyticsTag, shadowedBy),
      ),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: `${BASE}/:shareId`,
    permission: 'shares:admin',
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
