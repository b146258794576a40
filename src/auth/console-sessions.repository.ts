import type { DataSource } from 'typeorm';
import { LIVE_TOKEN, PRINCIPAL_SELECT, type TokenPrincipal } from './access-tokens.repository';

/** Sessions one token may hold at once; signing in again past it ends the oldest (a browser per device is plenty). */
export const MAX_SESSIONS_PER_TOKEN = 20;

/** Console sessions (migration CreateConsoleSessions): a cookie's hash standing for one live access token. */
export class ConsoleSessionsRepository {
  constructor(
    private readonly db: DataSource,
    /** After a sign-out committed: this process's cached principals go at once (others hear auth_changed). */
    private readonly ended: () => void = () => undefined,
  ) {}

  /**
   * A new session for a live token, in one transaction that also forgets the
   * token's ended and expired sessions and ends its oldest live ones beyond
   * MAX_SESSIONS_PER_TOKEN. The session never outlives its token. Undefined
   * when the token is no longer live (revoked or deleted since it was checked).
   */
  async create(session: { id: string; tokenId: string; sessionHash: string; lifetimeMs: number }): Promise<Date | undefined> {
    const outcome = await this.db.transaction(async (m) => {
      // The token's row first, locked: sign-ins with one token take turns, so each counts the sessions the one before
      // committed (the limit holds exactly) and none ends sessions another is ending in another order (a deadlock, a 500).
      // NO KEY UPDATE does not block the foreign key checks of other tokens' sessions, nor reads.
      const locked: unknown[] = await m.query(`SELECT 1 FROM access_tokens t WHERE t.id = $1 AND ${LIVE_TOKEN} FOR NO KEY UPDATE`, [session.tokenId]);
      if (locked.length === 0) return undefined;
      const [row]: Array<{ expiresAt: Date }> = await m.query(
        `INSERT INTO console_sessions (id, token_id, session_hash, expires_at)
         SELECT $1, t.id, $3, LEAST(now() + make_interval(secs => $4::double precision / 1000), COALESCE(t.expires_at, 'infinity'))
           FROM access_tokens t WHERE t.id = $2
         RETURNING expires_at AS "expiresAt"`,
        [session.id, session.tokenId, session.sessionHash, session.lifetimeMs],
      );
      await m.query(`DELETE FROM console_sessions WHERE token_id = $1 AND (ended_at IS NOT NULL OR expires_at <= now())`, [session.tokenId]);
      const [ended]: [unknown[], number] = await m.query(
        `UPDATE console_sessions SET ended_at = now()
          WHERE id IN (SELECT id FROM console_sessions WHERE token_id = $1 AND ended_at IS NULL ORDER BY created_at DESC, id OFFSET $2)
          RETURNING id`,
        [session.tokenId, MAX_SESSIONS_PER_TOKEN],
      );
      return { expiresAt: row.expiresAt, endedOthers: ended.length > 0 };
    });
    // Only an ended live session concerns the caches; a sign-in alone changes no principal.
    if (outcome?.endedOthers) this.ended();
    return outcome?.expiresAt;
  }

  /** The principal of a live session over a live token and a current membership; undefined otherwise. */
  async findPrincipal(sessionHash: string): Promise<TokenPrincipal | undefined> {
    const rows: Array<TokenPrincipal & { sessionId: string; sessionExpiresAt: Date }> = await this.db.query(
      `${PRINCIPAL_SELECT.replace('SELECT ', 'SELECT s.id AS "sessionId", s.expires_at AS "sessionExpiresAt", ')} JOIN console_sessions s ON s.token_id = t.id
        WHERE s.session_hash = $1 AND s.ended_at IS NULL AND s.expires_at > now() AND ${LIVE_TOKEN}`,
      [sessionHash],
    );
    if (!rows[0]) return undefined;
    const { sessionId, sessionExpiresAt, ...principal } = rows[0];
    return { ...principal, session: { id: sessionId, expiresAt: sessionExpiresAt } };
  }

  /** The user's and the organization's names, as the console shows who is signed in. */
  async names(
    userId: string,
    organizationId: string,
  ): Promise<{ user: { email: string; name: string | null }; organization: { suid: string; name: string } } | undefined> {
    const rows: Array<{ email: string; userName: string | null; suid: string; organizationName: string }> = await this.db.query(
      `SELECT u.email, u.name AS "userName", o.suid, o.name AS "organizationName" FROM users u, organizations o WHERE u.id = $1 AND o.id = $2`,
      [userId, organizationId],
    );
    const row = rows[0];
    return row && { user: { email: row.email, name: row.userName }, organization: { suid: row.suid, name: row.organizationName } };
  }

  /** Ends a session (sign-out); false when it had already ended. */
  async end(id: string): Promise<boolean> {
    return this.endWhere('id = $1', id);
  }

  /** Ends the session a cookie stands for, if it is live (a browser signing in again). */
  async endByHash(sessionHash: string): Promise<boolean> {
    return this.endWhere('session_hash = $1', sessionHash);
  }

  private async endWhere(condition: string, value: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.db.query(
      `UPDATE console_sessions SET ended_at = now() WHERE ${condition} AND ended_at IS NULL RETURNING id`,
      [value],
    );
    if (rows.length > 0) this.ended();
    return rows.length > 0;
  }
}
