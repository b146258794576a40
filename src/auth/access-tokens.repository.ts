import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import { AccessToken, type TokenKind } from './access-token.entity';
import type { Page } from '../http/pagination';
import type { Role } from './roles';

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
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export class AccessTokensRepository {
  constructor(
    private readonly db: DataSource,
    /** After a revocation committed: this process's cached principals go at once (others hear auth_changed). */
    private readonly revoked: () => void = () => undefined,
  ) {}

  /**
   * In one round trip: the live (not revoked, not expired) token with this
   * hash, with its membership and, for a delegated token, its issuer's
   * membership. Undefined when there is no such token (its membership is
   * gone too: tokens are deleted with their membership).
   */
  async findPrincipal(hash: string): Promise<TokenPrincipal | undefined> {
    const rows: TokenPrincipal[] = await this.db.query(
      `SELECT t.id AS "tokenId", t.user_id AS "userId", t.organization_id AS "organizationId", o.suid AS "organizationSuid",
              m.role, t.kind, t.issued_by AS "issuedBy", im.role AS "issuerRole", t.expires_at AS "expiresAt", t.last_used_at AS "lastUsedAt"
         FROM access_tokens t
         JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = t.user_id
         JOIN organizations o ON o.id = t.organization_id
         LEFT JOIN memberships im ON t.kind = 'delegated' AND im.organization_id = t.organization_id AND im.user_id = t.issued_by
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
      [hash],
    );
    return rows[0];
  }

  async touch(tokenId: string): Promise<void> {
    await this.db.query(`UPDATE access_tokens SET last_used_at = now() WHERE id = $1`, [tokenId]);
  }

  async insert(token: Partial<AccessToken>, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.insert(AccessToken, token);
  }

  /**
   * Inserts a token minted with `parentId`, while that token is live: the
   * parent's row is share-locked until the insert commits, so a revocation
   * either comes first (and nothing is minted) or waits and then sees the
   * new token among those it revokes. False when the parent is no longer live.
   */
  async insertMinted(parentId: string, token: Partial<AccessToken>): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const live = await manager.query(
        `SELECT 1 FROM access_tokens WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
        [parentId],
      );
      if (live.length === 0) return false;
      await manager.insert(AccessToken, token);
      return true;
    });
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
  async countLive(organizationId: string, userId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.db.query(
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
   * while it ran (see insertMinted) is caught by the next pass.
   */
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
