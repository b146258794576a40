import { PERMISSIONS } from '../auth/roles';
import { assertWholePerson } from '../auth/tokens.service';
import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import {
  ActiveOrganizationSchema,
  ChangeRoleBody,
  CreatedOrganizationSchema,
  CreateOrganizationBody,
  MemberChangeSchema,
  MemberSchema,
  OrganizationSchema,
  RemoveMemberQuery,
  UpdateOrganizationBody,
  UserIdParams,
} from './organizations.schemas';
import type { OrganizationsService } from './organizations.service';

const tags = ['Organizations'];

/** The active organization and its members. Members join through invitations (invitations.routes.ts). */
export function registerOrganizationRoutes(ctx: RouteContext, service: OrganizationsService): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/organizations',
    permission: null,
    tags,
    summary: 'The organizations this token can act in (a token belongs to one membership, so one), with the role',
    responses: { 200: { description: 'Organizations', schema: z.object({ data: z.array(OrganizationSchema.extend({ role: z.string() })) }) } },
    handler: async ({ auth }) => ({ status: 200, body: { data: [{ ...(await service.get(auth.organizationId)), role: auth.role }] } }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/organizations',
    permission: null,
    tags,
    body: CreateOrganizationBody,
    summary: 'Create an organization on the free plan, owned by the caller; answers with a personal token for it (shown once)',
    responses: { 201: { description: 'Created', schema: CreatedOrganizationSchema } },
    handler: async ({ auth, body }) => {
      assertWholePerson(auth, 'create an organization in your name');
      const { organization, token } = await service.createOrganization({ name: body.name, plan: 'free', owner: { userId: auth.userId }, tokenName: 'owner' });
      return { status: 201, body: { ...organization, role: 'owner', token } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/organization',
    permission: null,
    tags,
    summary: 'The active organization, with the caller role and permissions in it',
    responses: { 200: { description: 'Active organization', schema: ActiveOrganizationSchema } },
    handler: async ({ auth }) => ({
      status: 200,
      body: { ...(await service.get(auth.organizationId)), role: auth.role, permissions: PERMISSIONS.filter((p) => auth.permissions.has(p)) },
    }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/organization',
    permission: 'members:admin',
    tags,
    body: UpdateOrganizationBody,
    summary: 'Rename the active organization',
    responses: { 200: { description: 'Updated', schema: OrganizationSchema } },
    handler: async ({ auth, body }) => ({ status: 200, body: await service.rename(auth.organizationId, body.name) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/organization/members',
    permission: 'members:admin',
    tags,
    query: PageQuery,
    summary: 'Members of the active organization, oldest first',
    responses: { 200: { description: 'Members', schema: z.object({ total: z.number(), data: z.array(MemberSchema) }) } },
    handler: async ({ auth, query }) => ({ status: 200, body: await service.listMembers(auth.organizationId, query) }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/organization/members/:userId',
    permission: 'members:admin',
    tags,
    params: UserIdParams,
    body: ChangeRoleBody,
    summary:
      "Change a member's role (at least one owner always remains). A member who loses shares:admin takes the shares they granted with them (revoked) unless an owner sends keepShares: true (the owner becomes their granter)",
    responses: { 200: { description: 'Updated, with what became of the shares the member granted', schema: MemberChangeSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: await service.changeRole(auth.organizationId, params.userId, body.role, { actor: auth, keepShares: body.keepShares }),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/organization/members/:userId',
    permission: 'members:admin',
    tags,
    params: UserIdParams,
    query: RemoveMemberQuery,
    summary:
      'Remove a member; their tokens here are deleted with the membership, and the shares they granted are revoked unless an owner sends ?keepShares=true (the owner becomes their granter)',
    responses: { 200: { description: 'Removed member, with what became of the shares they granted', schema: MemberChangeSchema } },
    handler: async ({ auth, params, query }) => ({
      status: 200,
      body: await service.removeMember(auth.organizationId, params.userId, { actor: auth, keepShares: query.keepShares }),
    }),
  });
}
