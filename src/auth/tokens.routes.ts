import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { AccessTokenSchema, IssuedTokenSchema, IssueTokenBody, MemberParams, MemberTokenParams, TokenIdParams } from './tokens.schemas';
import type { TokensService } from './tokens.service';

const TokenList = z.object({ total: z.number(), data: z.array(AccessTokenSchema) });

/** The caller's own tokens (`/tokens`), and member admins' delegated tokens for members below them. */
export function registerTokenRoutes(ctx: RouteContext, tokens: TokensService): void {
  const tags = ['Access tokens'];
  defineRoute(ctx, {
    method: 'get',
    path: '/tokens',
    permission: null,
    tags,
    query: PageQuery,
    summary: "The caller's live tokens (of this membership), newest first",
    responses: { 200: { description: 'Tokens', schema: TokenList } },
    handler: async ({ auth, query }) => ({ status: 200, body: await tokens.listOwn(auth, query) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/tokens',
    permission: null,
    tags,
    body: IssueTokenBody,
    summary: 'Mint another token of this membership (shown once); it is never wider than the token that mints it and is revoked with it',
    responses: { 201: { description: 'Issued', schema: IssuedTokenSchema } },
    handler: async ({ auth, body }) => ({ status: 201, body: await tokens.mintForCaller(auth, body) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/tokens/:id',
    permission: null,
    tags,
    params: TokenIdParams,
    summary: "Revoke one of the caller's tokens, and every token minted with it",
    responses: { 200: { description: 'Revoked token', schema: AccessTokenSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: await tokens.revokeOwn(auth, params.id) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/organization/members/:userId/tokens',
    permission: 'members:admin',
    tags,
    params: MemberParams,
    query: PageQuery,
    summary: "Live tokens of a member below the caller's role, newest first",
    responses: { 200: { description: 'Tokens', schema: TokenList } },
    handler: async ({ auth, params, query }) => ({ status: 200, body: await tokens.listForMember(auth, params.userId, query) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/organization/members/:userId/tokens',
    permission: 'members:admin',
    tags,
    params: MemberParams,
    body: IssueTokenBody,
    summary: "Mint a delegated token for a member below the caller's role (shown once); it acts only here, and only while the caller outranks the member",
    responses: { 201: { description: 'Issued', schema: IssuedTokenSchema } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await tokens.mintForMember(auth, params.userId, body) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/organization/members/:userId/tokens/:id',
    permission: 'members:admin',
    tags,
    params: MemberTokenParams,
    summary: "Revoke a token of a member below the caller's role, and every token minted with it",
    responses: { 200: { description: 'Revoked token', schema: AccessTokenSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: await tokens.revokeForMember(auth, params.userId, params.id) }),
  });
}
