import { type EntityManager, In, IsNull } from 'typeorm';
import { isUniqueViolation } from '../db/unique-violation';
import { DataStoreShare } from './share.entity';

/** Active shares an organization may grant at once; lists of shares are bounded by it. */
export const MAX_ACTIVE_SHARES = 500;
/** Received shares listed at most (many organizations may share with one). */
export const MAX_RECEIVED_LISTED = 1_000;

/** The table already has an active share to that organization. */
export class ShareTaken extends Error {}

/** The granting member may no longer share (removed or demoted while the share was being made). */
export class GranterNotAllowed extends Error {}

/** The member who granted a share, as the granting organization's list shows them. */
export interface Granter {
  userId: string;
  email: string;
  name: string | null;
}

/** What closing a revoked share needs. */
export type RevokedShare = Pick<DataStoreShare, 'id' | 'ownerOrganizationId' | 'tableName'>;

/** A table another organization shared, as the recipient reaches it. */
export interface ReceivedTable {
  shareId: string;
  ownerOrganizationId: string;
  tableName: string;
}

/** Shares of data store tables; only active ones (not revoked) are ever answered, except by `activeIds`' callers asking. */
export class SharesRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Inserts the share while its granter is a member with one of `roles`,
   * holding their membership row until the insert commits: a removal or
   * demotion (which locks that row to revoke the member's shares) either
   * waits and then finds the new share, or goes first and the insert is
   * refused (GranterNotAllowed). The partial unique index decides races
   * between two shares of one table (ShareTaken).
   */
  async insertGranted(share: DataStoreShare, roles: readonly string[]): Promise<DataStoreShare> {
    try {
      return await this.manager.transaction(async (m) => {
        const [member]: Array<{ role: string }> = await m.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2 FOR SHARE`, [
          share.organizationId,
          share.userId,
        ]);
        if (!member || !roles.includes(member.role)) throw new GranterNotAllowed();
        return m.getRepository(DataStoreShare).save(share);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'data_store_shares_active_key')) throw new ShareTaken();
      throw err;
    }
  }

  /** Revokes, in the caller's transaction, every active share `userId` granted in the organization; the revoked shares. */
  async revokeGrantedBy(m: EntityManager, organizationId: string, userId: string): Promise<RevokedShare[]> {
    const [rows]: [Array<{ id: string; owner_organization_id: string; table_name: string }>] = await m.query(
      `UPDATE data_store_shares SET revoked_at = now(), updated_at = now()
        WHERE organization_id = $1 AND user_id = $2 AND revoked_at IS NULL
        RETURNING id, owner_organization_id, table_name`,
      [organizationId, userId],
    );
    return rows.map((r) => ({ id: r.id, ownerOrganizationId: r.owner_organization_id, tableName: r.table_name }));
  }

  /** Makes `toUserId` the granter of every active share `fromUserId` granted, in the caller's transaction; how many. */
  async reassignGrantedBy(m: EntityManager, organizationId: string, fromUserId: string, toUserId: string): Promise<number> {
    const [, count]: [unknown, number] = await m.query(
      `UPDATE data_store_shares SET user_id = $3, updated_at = now() WHERE organization_id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [organizationId, fromUserId, toUserId],
    );
    return count;
  }

  /** The members who granted `shares`, by user id (a granter whose account is gone is absent). */
  async granters(shares: readonly DataStoreShare[]): Promise<Map<string, Granter>> {
    const ids = [...new Set(shares.map((s) => s.userId).filter((id): id is string => id !== null))];
    if (ids.length === 0) return new Map();
    const rows: Granter[] = await this.manager.query(`SELECT id AS "userId", email, name FROM users WHERE id = ANY($1::uuid[])`, [ids]);
    return new Map(rows.map((r) => [r.userId, r]));
  }

  countGranted(organizationId: string): Promise<number> {
    return this.manager.getRepository(DataStoreShare).countBy({ organizationId, revokedAt: IsNull() });
  }

  /** Newest first. */
  listGranted(organizationId: string): Promise<DataStoreShare[]> {
    return this.manager.getRepository(DataStoreShare).find({
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: MAX_ACTIVE_SHARES,
    });
  }

  /** Newest first. */
  listReceived(organizationId: string): Promise<DataStoreShare[]> {
    return this.manager.getRepository(DataStoreShare).find({
      where: { sharedToOrganizationId: organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: MAX_RECEIVED_LISTED,
    });
  }

  /** The active shares of one of the organization's own tables. */
  grantedForTable(organizationId: string, tableName: string): Promise<DataStoreShare[]> {
    return this.manager.getRepository(DataStoreShare).find({
      where: { organizationId, tableName, revokedAt: IsNull() },
      order: { createdAt: 'ASC' },
      take: MAX_ACTIVE_SHARES,
    });
  }

  /** The active share from `ownerOrganizationId` to `organizationId` of the table named `name` (the owner's name or the alias). */
  async findReceived(organizationId: string, ownerOrganizationId: string, name: string): Promise<DataStoreShare | null> {
    const found = await this.manager.getRepository(DataStoreShare).find({
      where: [
        { sharedToOrganizationId: organizationId, ownerOrganizationId, tableName: name, revokedAt: IsNull() },
        { sharedToOrganizationId: organizationId, ownerOrganizationId, alias: name, revokedAt: IsNull() },
      ],
      take: 2,
    });
    // The owner's own name wins over an alias that happens to equal another of its tables' names.
    return found.find((s) => s.tableName === name) ?? found[0] ?? null;
  }

  /**
   * The table an active alias of the organization names, or null when the
   * name is no alias. Owners choose aliases without seeing the recipient's
   * names, so two may pick the same one: the earliest active share holds it.
   */
  async receivedTable(organizationId: string, alias: string): Promise<ReceivedTable | null> {
    // Plain SQL: every data store read asks this, and building it through the query builder cost more than running it.
    const rows: ReceivedTable[] = await this.manager.query(
      `SELECT id AS "shareId", owner_organization_id AS "ownerOrganizationId", table_name AS "tableName"
         FROM data_store_shares WHERE shared_to_organization_id = $1 AND alias = $2 AND revoked_at IS NULL
        ORDER BY created_at, id LIMIT 1`,
      [organizationId, alias],
    );
    return rows[0] ?? null;
  }

  /**
   * Of the organization's received shares, those another name holds at the
   * recipient's side: a table of its own by the alias, or an earlier share
   * under the same alias. Share id to what holds its alias.
   */
  async shadowed(organizationId: string, shares: readonly DataStoreShare[]): Promise<Map<string, 'own_table' | 'earlier_share'>> {
    if (shares.length === 0) return new Map();
    const rows: Array<{ id: string; by: 'own_table' | 'earlier_share' }> = await this.manager.query(
      `SELECT s.id, CASE WHEN EXISTS (SELECT FROM data_store_records r WHERE r.organization_id = $1 AND r.table_name = s.alias AND r.key = '__meta__')
                         THEN 'own_table' ELSE 'earlier_share' END AS by
         FROM data_store_shares s
        WHERE s.id = ANY($2::uuid[])
          AND (EXISTS (SELECT FROM data_store_records r WHERE r.organization_id = $1 AND r.table_name = s.alias AND r.key = '__meta__')
               OR EXISTS (SELECT FROM data_store_shares e WHERE e.shared_to_organization_id = $1 AND e.alias = s.alias AND e.revoked_at IS NULL
                            AND (e.created_at, e.id) < (s.created_at, s.id)))`,
      [organizationId, shares.map((s) => s.id)],
    );
    return new Map(rows.map((r) => [r.id, r.by]));
  }

  /**
   * Whether the share is still active, read inside a caller's transaction.
   * `lockShared` holds the row against a revocation until that transaction
   * ends (a revocation waits, then finds what the transaction created).
   */
  async isActive(m: EntityManager, id: string, lockShared: boolean): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM data_store_shares WHERE id = $1 AND revoked_at IS NULL${lockShared ? ' FOR SHARE' : ''}`, [id]);
    return rows.length > 0;
  }

  /** Of `ids`, the shares still active. */
  async activeIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.manager.getRepository(DataStoreShare).find({ select: { id: true }, where: { id: In(ids), revokedAt: IsNull() } });
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Marks an active share revoked, in a short transaction of its own: every
   * read checks the share, so from its commit on nothing more is answered.
   * Either side may end it: the granting organization revokes, the recipient
   * removes a share it received. Null when neither has such an active share.
   */
  async revoke(organizationId: string, id: string): Promise<DataStoreShare | null> {
    return this.manager.transaction(async (m) => {
      const share = await m.getRepository(DataStoreShare).findOne({
        where: [
          { organizationId, id, revokedAt: IsNull() },
          { sharedToOrganizationId: organizationId, id, revokedAt: IsNull() },
        ],
        lock: { mode: 'pessimistic_write' },
      });
      if (!share) return null;
      share.revokedAt = new Date();
      return m.save(DataStoreShare, share);
    });
  }
}
