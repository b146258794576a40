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

  /** The live (not revoked, not expired) token with this hash, if any. */
  async findLiveByHash(hash: string): Promise<TokenPrincipal | undefined> {
    const rows: Array<{ id: string; user_id: string; organization_id: string; issued_by: string | null; last_used_at: Date | null }> =
      await this.db.query(
        `SELECT id, user_id, organization_id, issued_by, last_used_at FROM access_tokens
          WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [hash],
      );
    const row = rows[0];
    return (
      row && {
        tokenId: row.id,
        userId: row.user_id,
        homeOrganizationId: row.organization_id,
        mayPickOrganization: row.issued_by === null || row.issued_by === row.user_id,
        lastUsedAt: row.last_used_at,
      }
    );
  }

  /** The user's membership in the organization named by id or suid. */
  async findMembership(userId: string, organizationRef: string): Promise<ActiveMembership | undefined> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(organizationRef);
    const rows: Array<{ id: string; suid: string; role: Role }> = await this.db.query(
      `SELECT o.id, o.suid, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1 AND ${isUuid ? 'o.id = $2::uuid' : 'o.suid = $2'}`,
      [userId, organizationRef],
    );
    const row = rows[0];
    return row && { organizationId: row.id, organizationSuid: row.suid, role: row.role };
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
