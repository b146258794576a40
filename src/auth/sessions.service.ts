import { UnauthorizedError } from '../errors/errors';
import { newId } from '../ids';
import type { AccessTokensRepository } from './access-tokens.repository';
import type { ConsoleSessionsRepository } from './console-sessions.repository';
import { effectivePermissions, outranks, type Permission, type Role } from './roles';
import { csrfTokenFor } from './session-cookie';
import { generateToken, hashToken } from './token-secret';

/** A console session lasts a working day at most, and never longer than its token. */
export const SESSION_LIFETIME_MS = 12 * 3_600_000;

export interface ConsoleSession {
  csrfToken: string | null;
  expiresAt: Date | null;
  user: { id: string; email: string; name: string | null };
  organization: { id: string; suid: string; name: string };
  role: Role;
  permissions: Permission[];
}

/** Who a session is, as the console shows it. */
interface Identity {
  userId: string;
  organizationId: string;
  role: Role;
  /** The permissions the token was minted with (null: its role's): a session of a token keeps its scope. */
  tokenPermissions: readonly Permission[] | null;
}

/**
 * Console sign-in: a pasted access token is exchanged for a session cookie
 * (src/auth/session-cookie.ts), so the token itself never stays in the
 * browser. The session stands for that token: revoking it, or removing the
 * member, ends the session on its next request (authenticate.ts).
 */
export class SessionsService {
  constructor(
    private readonly tokens: AccessTokensRepository,
    private readonly sessions: ConsoleSessionsRepository,
  ) {}

  /**
   * A new session for a live token; the cookie value is in `secret`, to be set
   * HttpOnly and never answered. `previous`, the cookie the browser sent, ends
   * (whoever it belonged to): one browser, one session.
   */
  async signIn(token: string, previous?: string): Promise<{ secret: string; session: ConsoleSession }> {
    const principal = await this.tokens.findPrincipal(hashToken(token));
    if (!principal || (principal.kind === 'delegated' && (!principal.issuerRole || !outranks(principal.issuerRole, principal.role)))) {
      throw new UnauthorizedError('Access token is invalid, expired or revoked');
    }
    if (previous !== undefined) await this.sessions.endByHash(hashToken(previous));
    const secret = generateToken('fbs_');
    const expiresAt = await this.sessions.create({ id: newId(), tokenId: principal.tokenId, sessionHash: secret.hash, lifetimeMs: SESSION_LIFETIME_MS });
    // Revoked in the meantime.
    if (!expiresAt) throw new UnauthorizedError('Access token is invalid, expired or revoked');
    return { secret: secret.token, session: await this.current(principal, secret.token, expiresAt) };
  }

  async signOut(sessionId: string): Promise<void> {
    await this.sessions.end(sessionId);
  }

  /** Who the caller is: the signed-in session of a request that came with the cookie (`secret`), or a bearer token's holder. */
  async current(identity: Identity, secret: string | undefined, expiresAt: Date | null): Promise<ConsoleSession> {
    const names = await this.sessions.names(identity.userId, identity.organizationId);
    if (!names) throw new UnauthorizedError('Your console session has ended; sign in again', 'session_ended');
    return {
      csrfToken: secret === undefined ? null : csrfTokenFor(secret),
      expiresAt,
      user: { id: identity.userId, ...names.user },
      organization: { id: identity.organizationId, ...names.organization },
      role: identity.role,
      permissions: effectivePermissions(identity.role, identity.tokenPermissions),
    };
  }
}
