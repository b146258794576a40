import { DataSource, EntityManager, IsNull } from 'typeorm';
import { AccessToken } from './access-token.entity';
import type { Role } from './roles';

export interface TokenPrincipal {
  tokenId: string;
  userId: string;
  homeOrganizationId: string;
  /** False for tokens minted by another member: they act only in their own organization. */
  mayPickOrganization: boolean;
  lastUsedAt: Date | null;
}

export interface ActiveMembership {
  organizationId: string;
  organizationSuid: string;
  role: Role;
}

export class AccessTokensRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * In one round trip: the live (not revoked, not expired) token with this
   * hash, and its user's membership in the organization named by id or suid
   * (the token's own organization when none is named). Undefined when the
   * token is not live; `membership` undefined when the user is not a member.
   */
  async findPrincipal(hash: string, organizationRef?: string): Promise<{ principal: TokenPrincipal; membership?: ActiveMembership } | undefined> {
    const isUuid = organizationRef !== undefined && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(organizationRef);
    const organization = organizationRef === undefined ? 'o.id = t.organization_id' : isUuid ? 'o.id = $2::uuid' : 'o.suid = $2';
    const rows: Array<{
      id: string;
      user_id: string;
      organization_id: string;
      issued_by: string | null;
      last_used_at: Date | null;
      member_org_id: string | null;
      member_org_suid: string | null;
      role: Role | null;
    }> = await this.db.query(
      `SELECT t.id, t.user_id, t.organization_id, t.issued_by, t.last_used_at,
              o.id AS member_org_id, o.suid AS member_org_suid, m.role
         FROM access_tokens t
         LEFT JOIN organizations o ON ${organization}
         LEFT JOIN memberships m ON m.organization_id = o.id AND m.user_id = t.user_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
      organizationRef === undefined ? [hash] : [hash, organizationRef],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      principal: {
        tokenId: row.id,
        userId: row.user_id,
        homeOrganizationId: row.organization_id,
        mayPickOrganization: row.issued_by === null || row.issued_by === row.user_id,
        lastUsedAt: row.last_used_at,
      },
      membership: row.role ? { organizationId: row.member_org_id!, organizationSuid: row.member_org_suid!, role: row.role } : undefined,
    };
  }

  async touch(tokenId: string): Promise<void> {
    await this.db.query(`UPDATE access_tokens SET last_used_at = now() WHERE id = $1`, [tokenId]);
  }

  async insert(token: Partial<AccessToken>, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.insert(AccessToken, token);
  }

  async listForUser(userId: string, organizationId: string): Promise<AccessToken[]> {
    return this.db.getRepository(AccessToken).find({
      where: { userId, organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
  }

  /** Revokes a live token of this user in this organization; undefined when there is none. */
  async revoke(id: string, userId: string, organizationId: string): Promise<AccessToken | undefined> {
    const repo = this.db.getRepository(AccessToken);
    const result = await repo.update({ id, userId, organizationId, revokedAt: IsNull() }, { revokedAt: new Date() });
    if (!result.affected) return undefined;
    return (await repo.findOneBy({ id })) ?? undefined;
  }
}
