import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import { AccessToken, type TokenKind } from './access-token.entity';
import type { Page } from '../http/pagination';
import type { Permission, Role } from './roles';

/** A live token with the membership it belongs to, as authentication needs it. */
export interface TokenPrincipal {
  tokenId: string;
  userId: string;
  organizationId: string;
  organizationSuid: string;
  role: Role;
  kind: TokenKind;
  issuedBy: string | null;
  /** The issuer's current role in the organization, for delegated tokens; null when the issuer is no longer a member. */
  issuerRole: Role | null;
  /** The permissions the token was minted with (null: its role's); the role's current ones narrow them further. */
  tokenPermissions: Permission[] | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  /** Set when the principal came from a console session (the cookie) rather than the token itself. */
  session?: { id: string; expiresAt: Date };
}

/**
 * A token with its membership and, for a delegated token, its issuer's
 * membership: what authentication needs, in one round trip. Tokens are
 * deleted with their membership, so the inner join also drops removed members.
 */
export const PRINCIPAL_SELECT = `
  SELECT t.id AS "tokenId", t.user_id AS "userId", t.organization_id AS "organizationId", o.suid AS "organizationSuid",
         m.role, t.kind, t.issued_by AS "issuedBy", im.role AS "issuerRole", t.expires_at AS "expiresAt", t.last_used_at AS "lastUsedAt",
         t.permissions AS "tokenPermissions"
    FROM access_tokens t
    JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = t.user_id
    JOIN organizations o ON o.id = t.organization_id
    LEFT JOIN memberships im ON t.kind = 'delegated' AND im.organization_id = t.organization_id AND im.user_id = t.issued_by`;

/** The token is neither revoked nor expired. */
export const LIVE_TOKEN = `t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`;

export class AccessTokensRepository {
  constructor(
    private readonly db: DataSource,
    /** After a revocation committed: this process's cached principals go at once (others hear auth_changed). */
    private readonly revoked: () => void = () => undefined,
  ) {}

  /** The principal of the live token with this hash; undefined when there is none (revoked, expired, or its membership gone). */
  async findPrincipal(hash: string): Promise<TokenPrincipal | undefined> {
    const rows: TokenPrincipal[] = await this.db.query(`${PRINCIPAL_SELECT} WHERE t.token_hash = $1 AND ${LIVE_TOKEN}`, [hash]);
    return rows[0];
  }

  async touch(tokenId: string): Promise<void> {
    await this.db.query(`UPDATE access_tokens SET last_used_at = now() WHERE id = $1`, [tokenId]);
  }

  /**
   * Inserts a token unless its membership already holds `limit` live ones.
   * The membership row is locked first, so concurrent mints for one member
   * count one after another and the limit holds. A token minted with a
   * parent (`parentId`) is inserted only while that parent is live: its row
   * is share-locked until the insert commits, so a revocation either comes
   * first (nothing is minted) or waits and then sees the new token among
   * those it revokes. In `manager`'s transaction when given (a membership
   * being created), else in one of its own.
   */
  async insertWithinLimit(token: Partial<AccessToken>, limit: number, manager?: EntityManager): Promise<'inserted' | 'limit' | 'parent_revoked'> {
    const work = async (m: EntityManager) => {
      await m.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2 FOR UPDATE`, [token.organizationId, token.userId]);
      if (token.parentId) {
        const live = await m.query(
          `SELECT 1 FROM access_tokens WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
          [token.parentId],
        );
        if (live.length === 0) return 'parent_revoked' as const;
      }
      if ((await this.countLive(token.organizationId!, token.userId!, m)) >= limit) return 'limit' as const;
      await m.insert(AccessToken, token);
      return 'inserted' as const;
    };
    return manager ? work(manager) : this.db.transaction(work);
  }

  /** A page of the live tokens of one membership, newest first, and how many there are. */
  async listForMembership(organizationId: string, userId: string, page: Page): Promise<{ total: number; data: AccessToken[] }> {
    const [data, total] = await this.db.getRepository(AccessToken).findAndCount({
      where: { userId, organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  /** Live (unrevoked, unexpired) tokens of one membership. */
  async countLive(organizationId: string, userId: string, manager: EntityManager = this.db.manager): Promise<number> {
    const rows: Array<{ n: number }> = await manager.query(
      `SELECT count(*)::int AS n FROM access_tokens
        WHERE organization_id = $1 AND user_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [organizationId, userId],
    );
    return rows[0].n;
  }

  /**
   * Revokes a live token of one membership, then every live token minted
   * from it, at any depth; undefined when the membership has no such live
   * token. The descent repeats until it finds nothing more: a token minted
   * while it ran (see insertWithinLimit) is caught by the next pass.
   */
  /** Whether token `id` was minted from `ancestorId`, directly or through tokens minted from it. */
  async isMintedFrom(id: string, ancestorId: string): Promise<boolean> {
    const rows: Array<{ found: boolean }> = await this.db.query(
      `WITH RECURSIVE line AS (
         SELECT parent_id, 1 AS depth FROM access_tokens WHERE id = $1
         UNION ALL
         SELECT t.parent_id, line.depth + 1 FROM access_tokens t JOIN line ON t.id = line.parent_id WHERE line.depth < 100
       )
       SELECT EXISTS (SELECT 1 FROM line WHERE parent_id = $2) AS found`,
      [id, ancestorId],
    );
    return rows[0]?.found === true;
  }

  async revoke(id: string, organizationId: string, userId: string): Promise<AccessToken | undefined> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [revoked]: [Array<{ id: string }>, number] = await this.db.query(
      `UPDATE access_tokens SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND user_id = $3 AND revoked_at IS NULL RETURNING id`,
      [id, organizationId, userId],
    );
    if (revoked.length === 0) return undefined;
    for (;;) {
      const [descendants]: [Array<{ id: string }>, number] = await this.db.query(
        `WITH RECURSIVE minted AS (
           SELECT id FROM access_tokens WHERE parent_id = $1
           UNION
           SELECT t.id FROM access_tokens t JOIN minted ON t.parent_id = minted.id
         )
         UPDATE access_tokens SET revoked_at = now() WHERE id IN (SELECT id FROM minted) AND revoked_at IS NULL RETURNING id`,
        [id],
      );
      if (descendants.length === 0) break;
    }
    this.revoked();
    return (await this.db.getRepository(AccessToken).findOneBy({ id })) ?? undefined;
  }
}
