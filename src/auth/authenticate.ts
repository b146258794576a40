import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../errors/errors';
import { AccessTokensRepository } from './access-tokens.repository';
import { ROLE_PERMISSIONS } from './roles';
import { hashToken } from './token-secret';

/** Header a caller uses to pick the active organization (its id or suid). */
export const ORGANIZATION_HEADER = 'x-organization-id';

const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves `Authorization: Bearer <token>` to a user acting in one
 * organization: the one named by X-Organization-Id, else the token's own.
 * 401 for a missing or dead token; 403 when the user is not a member of it,
 * or when a token minted by another member names any organization but its own.
 */
export function createAuthenticate(tokens: AccessTokensRepository) {
  return async function authenticate(req: Request, _res: Response, next: NextFunction): Promise<void> {
    const header = req.headers.authorization;
    const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match) throw new UnauthorizedError(header ? 'Authorization header must be "Bearer <token>"' : 'Missing access token');

    const requested = req.header(ORGANIZATION_HEADER)?.trim();
    const found = await tokens.findPrincipal(hashToken(match[1]), requested || undefined);
    if (!found) throw new UnauthorizedError('Access token is invalid, expired or revoked');
    const { principal, membership } = found;
    if (membership && !principal.mayPickOrganization && membership.organizationId !== principal.homeOrganizationId) {
      throw new ForbiddenError('This token was issued by another member and acts only in its own organization', 'no_organization_access');
    }
    if (!membership) throw new ForbiddenError('No access to the active organization', 'no_organization_access');

    req.auth = {
      userId: principal.userId,
      tokenId: principal.tokenId,
      organizationId: membership.organizationId,
      organizationSuid: membership.organizationSuid,
      role: membership.role,
      permissions: new Set(ROLE_PERMISSIONS[membership.role]),
    };
    if (!principal.lastUsedAt || Date.now() - principal.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await tokens.touch(principal.tokenId);
    }
    next();
  };
}
