import { defineRoute, type RouteContext } from '../http/route';
import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import {
  AcceptedInvitationSchema,
  AcceptInvitationBody,
  CreatedInvitationSchema,
  InvitationIdParams,
  InvitationSchema,
  InviteBody,
} from './organizations.schemas';
import { InvitationPreviewSchema, PreviewInvitationBody } from './invitations.schemas';
import type { InvitationsService } from './invitations.service';

const tags = ['Organizations'];

/** Inviting people into the active organization, and accepting an invitation. */
export function registerInvitationRoutes(ctx: RouteContext, service: InvitationsService): void {
  defineRoute(ctx, {
    method: 'post',
    path: '/organization/invitations',
    permission: 'members:admin',
    tags,
    body: InviteBody,
    summary: 'Invite someone by e-mail with a role; grants nothing until they accept with the code (shown once). Only owners invite owners.',
    responses: { 201: { description: 'Invited', schema: CreatedInvitationSchema }, 409: { description: 'Already a member' } },
    handler: async ({ auth, body }) => ({ status: 201, body: await service.invite(auth, body) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/organization/invitations',
    permission: 'members:admin',
    tags,
    query: PageQuery,
    summary: 'Open invitations (not accepted, revoked or expired), newest first',
    responses: { 200: { description: 'Invitations', schema: z.object({ total: z.number(), data: z.array(InvitationSchema) }) } },
    handler: async ({ auth, query }) => ({ status: 200, body: await service.listOpen(auth.organizationId, query) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/organization/invitations/:id',
    permission: 'members:admin',
    tags,
    params: InvitationIdParams,
    summary: 'Revoke an open invitation; its code stops working',
    responses: { 200: { description: 'Revoked', schema: InvitationSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: await service.revoke(auth.organizationId, params.id) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/invitations/preview',
    tags,
    body: PreviewInvitationBody,
    summary:
      'What an invitation offers, read with its code before accepting: the organization, who invited, the role, the invited address and when the code expires. Changes nothing; a POST so the code stays out of URLs.',
    responses: {
      200: { description: 'The open invitation', schema: InvitationPreviewSchema },
      404: { description: 'No open invitation has this code (unknown, expired, revoked or used: one answer for all)' },
    },
    handler: async ({ body }) => ({ status: 200, body: await service.preview(body.code) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/invitations/accept',
    optionalAuthentication: true,
    tags,
    body: AcceptInvitationBody,
    summary:
      'Accept an invitation with its code. With an account: send one of your own personal tokens. Without one: send none, and an account is created for the invited address. Answers with a personal token for the new membership (shown once).',
    responses: {
      201: { description: 'Joined', schema: AcceptedInvitationSchema },
      404: { description: 'No open invitation has this code' },
      409: { description: 'Already a member, or the address has an account and no token was sent' },
    },
    handler: async ({ body }, req) => ({ status: 201, body: await service.accept(body.code, body.name, req.auth) }),
  });
}
