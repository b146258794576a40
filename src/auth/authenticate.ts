import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../errors/errors';
import type { AuthContext } from '../http/request-context';
import { type AccessTokensRepository, type TokenPrincipal } from './access-tokens.repository';
import type { ConsoleSessionsRepository } from './console-sessions.repository';
import type { PrincipalCache } from './principal-cache';
import { csrfAllows, type SessionCookies } from './session-cookie';
import { effectivePermissions, outranks } from './roles';
import { hashToken } from './token-secret';

/** Header a caller may send to name the organization it means (id or suid); it must be the token's own. */
export const ORGANIZATION_HEADER = 'x-organization-id';

const TOUCH_INTERVAL_MS = 60_000;

/** The error code of a request whose console session is no longer live. */
export const SESSION_ENDED = 'session_ended';

/**
 * Resolves the caller to a user acting in the one organization its token
 * belongs to: `Authorization: Bearer <token>`, or else the console's session
 * cookie, which stands for one token and dies with it. 401 for a missing or
 * dead token or session, and for a delegated token whose issuer no longer
 * outranks its user; 403 when X-Organization-Id names any organization but the
 * token's own, and for a cookie-authenticated write without the session's
 * CSRF token.
 */
export function createAuthenticate(tokens: AccessTokensRepository, sessions: ConsoleSessionsRepository, cookies: SessionCookies, cache: PrincipalCache) {
  async function principalOf(req: Request): Promise<TokenPrincipal> {
    const header = req.headers.authorization;
    const sessionSecret = header === undefined ? cookies.read(req) : undefined;
    if (sessionSecret !== undefined) {
      const hash = hashToken(sessionSecret);
      const principal = await cache.lookup(`session:${hash}`, () => sessions.findPrincipal(hash));
      if (!principal) throw new UnauthorizedError('Your console session has ended (signed out, expired, or its token revoked); sign in again', SESSION_ENDED);
      // SameSite=Strict keeps other sites' requests cookieless; the token is the second lock, for old browsers and same-site attackers.
      if (!csrfAllows(req, sessionSecret)) {
        throw new ForbiddenError('A console write must carry the X-CSRF-Token header that GET /session answers', 'csrf_failed');
      }
      return principal;
    }
    const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match) throw new UnauthorizedError(header ? 'Authorization header must be "Bearer <token>"' : 'Missing access token');
    const hash = hashToken(match[1]);
    const principal = await cache.lookup(hash, () => tokens.findPrincipal(hash));
    if (!principal) throw new UnauthorizedError('Access token is invalid, expired or revoked');
    return principal;
  }

  async function resolve(req: Request): Promise<AuthContext> {
    const principal = await principalOf(req);
    // A delegated token is only as good as the member who vouched for it: gone, or no longer senior, and it stops.
    if (principal.kind === 'delegated' && (!principal.issuerRole || !outranks(principal.issuerRole, principal.role))) {
      throw new UnauthorizedError('Access token is invalid, expired or revoked');
    }
    // Ids and suids are lower case; a UUID may arrive in upper case.
    const requested = req.header(ORGANIZATION_HEADER)?.trim().toLowerCase();
    if (requested && requested !== principal.organizationId && requested !== principal.organizationSuid) {
      throw new ForbiddenError('This token acts only in the organization it belongs to; use a token of the organization you mean', 'no_organization_access');
    }
    if (!principal.lastUsedAt || Date.now() - principal.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await tokens.touch(principal.tokenId);
      // The cached principal is this same object: the next request need not touch again for a minute.
      principal.lastUsedAt = new Date();
    }
    return {
      userId: principal.userId,
      tokenId: principal.tokenId,
      tokenKind: principal.kind,
      tokenIssuedBy: principal.issuedBy,
      tokenExpiresAt: principal.expiresAt,
      organizationId: principal.organizationId,
      organizationSuid: principal.organizationSuid,
      role: principal.role,
      // A token minted with chosen permissions acts with those its member's role still holds (roles.ts).
      permissions: new Set(effectivePermissions(principal.role, principal.tokenPermissions)),
      tokenPermissions: principal.tokenPermissions,
      session: principal.session,
    };
  }

  return {
    /** Every management route but the public ones. */
    async authenticate(req: Request, _res: Response, next: NextFunction): Promise<void> {
      req.auth = await resolve(req);
      next();
    },
    /**
     * Routes open to anyone that act differently for a caller who presents a
     * token (accepting an invitation). A dead session cookie makes the caller
     * anonymous, and is cleared: the page cannot clear an HttpOnly cookie itself.
     */
    async authenticateIfPresent(req: Request, res: Response, next: NextFunction): Promise<void> {
      if (req.headers.authorization !== undefined) {
        req.auth = await resolve(req);
      } else if (cookies.read(req) !== undefined) {
        try {
          req.auth = await resolve(req);
        } catch (error) {
          if (!(error instanceof UnauthorizedError && error.code === SESSION_ENDED)) throw error;
          res.clearCookie(cookies.name(req), cookies.options(req));
          res.clearCookie(cookies.csrfName(req), cookies.csrfOptions(req));
        }
      }
      next();
    },
  };
}
