import { ROLE_PERMISSIONS } from '../auth/roles';
import { defineRoute, RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import {
  AccessTokenSchema,
  ActiveOrganizationSchema,
  AddMemberBody,
  ChangeRoleBody,
  CreateOrganizationBody,
  IssuedTokenSchema,
  IssueTokenBody,
  MemberSchema,
  OrganizationSchema,
  TokenIdParams,
  UpdateOrganizationBody,
  UserIdParams,
} from './organizations.schemas';
import { OrganizationsService } from './organizations.service';
import { AccessTokensRepository } from '../auth/access-tokens.repository';
import { NotFoundError } from '../errors/errors';

const tags = ['Organizations'];

export function registerOrganizationRoutes(ctx: RouteContext, service: OrganizationsService, tokens: AccessTokensRepository): void {
  defineRoute(ctx, {
    method: 'get', path: '/organizations', permission: null, tags,
    summary: 'Organizations the caller belongs to, with the role in each',
    responses: { 200: { description: 'Organizations', schema: z.object({ data: z.array(OrganizationSchema.extend({ role: z.string() })) }) } },
    handler: async ({ auth }) => ({ status: 200, body: { data: await service.listForUser(auth.userId) } }),
  });

  defineRoute(ctx, {
    method: 'post', path: '/organizations', permission: null, tags, body: CreateOrganizationBody,
    summary: 'Create an organization on the free plan, owned by the caller (select it with X-Organization-Id)',
    responses: { 201: { description: 'Created', schema: OrganizationSchema } },
    handler: async ({ auth, body }) => {
      const { organization } = await service.createOrganization({ name: body.name, plan: 'free', owner: { userId: auth.userId } });
      return { status: 201, body: organization };
    },
  });

  defineRoute(ctx, {
    method: 'get', path: '/organization', permission: null, tags,
    summary: 'The active organization, with the caller role and permissions in it',
    responses: { 200: { description: 'Active organization', schema: ActiveOrganizationSchema } },
    handler: async ({ auth }) => ({
      status: 200,
      body: { ...(await service.get(auth.organizationId)), role: auth.role, permissions: ROLE_PERMISSIONS[auth.role] },
    }),
  });

  defineRoute(ctx, {
    method: 'patch', path: '/organization', permission: 'members:admin', tags, body: UpdateOrganizationBody,
    summary: 'Rename the active organization',
    responses: { 200: { description: 'Updated', schema: OrganizationSchema } },
    handler: async ({ auth, body }) => ({ status: 200, body: await service.rename(auth.organizationId, body.name) }),
  });

  defineRoute(ctx, {
    method: 'get', path: '/organization/members', permission: 'members:admin', tags,
    summary: 'Members of the active organization',
    responses: { 200: { description: 'Members', schema: z.object({ total: z.number(), data: z.array(MemberSchema) }) } },
    handler: async ({ auth }) => {
      const data = await service.listMembers(auth.organizationId);
      return { status: 200, body: { total: data.length, data } };
    },
  });

  defineRoute(ctx, {
    method: 'post', path: '/organization/members', permission: 'members:admin', tags, body: AddMemberBody,
    summary: 'Add a member by e-mail (the user is created if new). Only owners may add owners.',
    responses: { 201: { description: 'Added', schema: MemberSchema }, 409: { description: 'Already a member' } },
    handler: async ({ auth, body }) => ({ status: 201, body: await service.addMember(auth.organizationId, auth.role, body) }),
  });

  defineRoute(ctx, {
    method: 'patch', path: '/organization/members/:userId', permission: 'members:admin', tags,
    params: UserIdParams, body: ChangeRoleBody,
    summary: "Change a member's role (at least one owner always remains)",
    responses: { 200: { description: 'Updated', schema: MemberSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: await service.changeRole(auth.organizationId, auth.role, params.userId, body.role),
    }),
  });

  defineRoute(ctx, {
    method: 'delete', path: '/organization/members/:userId', permission: 'members:admin', tags, params: UserIdParams,
    summary: 'Remove a member; their tokens stop working in this organization at once',
    responses: { 200: { description: 'Removed member', schema: MemberSchema } },
    handler: async ({ auth, params }) => ({
      status: 200,
      body: await service.removeMember(auth.organizationId, auth.role, params.userId),
    }),
  });

  defineRoute(ctx, {
    method: 'post', path: '/organization/members/:userId/tokens', permission: 'members:admin', tags,
    params: UserIdParams, body: IssueTokenBody,
    summary: 'Issue an access token to a member (shown once)',
    responses: { 201: { description: 'Issued', schema: IssuedTokenSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 201,
      body: await service.issueTokenForMember(auth.organizationId, params.userId, body.name, body.expiresInDays, { userId: auth.userId, role: auth.role }),
    }),
  });

  const tokenTags = ['Access tokens'];
  defineRoute(ctx, {
    method: 'get', path: '/tokens', permission: null, tags: tokenTags,
    summary: "The caller's live tokens in the active organization",
    responses: { 200: { description: 'Tokens', schema: z.object({ total: z.number(), data: z.array(AccessTokenSchema) }) } },
    handler: async ({ auth }) => {
      const data = await tokens.listForUser(auth.userId, auth.organizationId);
      return { status: 200, body: { total: data.length, data } };
    },
  });

  defineRoute(ctx, {
    method: 'post', path: '/tokens', permission: null, tags: tokenTags, body: IssueTokenBody,
    summary: 'Issue a new token to the caller in the active organization (shown once)',
    responses: { 201: { description: 'Issued', schema: IssuedTokenSchema } },
    handler: async ({ auth, body }) => ({
      status: 201,
      body: await service.issueTokenForMember(auth.organizationId, auth.userId, body.name, body.expiresInDays),
    }),
  });

  defineRoute(ctx, {
    method: 'delete', path: '/tokens/:id', permission: null, tags: tokenTags, params: TokenIdParams,
    summary: "Revoke one of the caller's tokens",
    responses: { 200: { description: 'Revoked token', schema: AccessTokenSchema } },
    handler: async ({ auth, params }) => {
      const revoked = await tokens.revoke(params.id, auth.userId, auth.organizationId);
      if (!revoked) throw new NotFoundError('Access token');
      return { status: 200, body: revoked };
    },
  });
}
