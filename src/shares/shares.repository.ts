import { type DataSource, type EntityManager, In, IsNull } from 'typeorm';
import { isUniqueViolation } from '../db/unique-violation';
import { DataStoreShare } from './share.entity';

/** Active shares an organization may grant at once; lists of shares are bounded by it. */
export const MAX_ACTIVE_SHARES = 500;
/** Received shares listed at most (many organizations may share with one). */
export const MAX_RECEIVED_LISTED = 1_000;

/** Which of the share's unique rules a new share broke. */
export class ShareTaken extends Error {
  constructor(readonly rule: 'table' | 'alias') {
    super(rule);
  }
}

/** A table another organization shared, as the recipient reaches it. */
export interface ReceivedTable {
  shareId: string;
  ownerOrganizationId: string;
  tableName: string;
}

/** Shares of data store tables; only active ones (not revoked) are ever answered, except by `activeIds`' callers asking. */
export class SharesRepository {
  constructor(private readonly db: DataSource) {}

  /** Inserts the share; the partial unique indexes decide races (ShareTaken says which rule lost). */
  async insert(share: DataStoreShare): Promise<DataStoreShare> {
    try {
      return await this.db.getRepository(DataStoreShare).save(share);
    } catch (err) {
      if (isUniqueViolation(err, 'data_store_shares_active_key')) throw new ShareTaken('table');
      if (isUniqueViolation(err, 'data_store_shares_alias_key')) throw new ShareTaken('alias');
      throw err;
    }
  }

  countGranted(organizationId: string): Promise<number> {
    return this.db.getRepository(DataStoreShare).countBy({ organizationId, revokedAt: IsNull() });
  }

  /** Newest first. */
  listGranted(organizationId: string): Promise<DataStoreShare[]> {
    return this.db.getRepository(DataStoreShare).find({
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: MAX_ACTIVE_SHARES,
    });
  }

  /** Newest first. */
  listReceived(organizationId: string): Promise<DataStoreShare[]> {
    return this.db.getRepository(DataStoreShare).find({
      where: { sharedToOrganizationId: organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: MAX_RECEIVED_LISTED,
    });
  }

  /** The active shares of one of the organization's own tables. */
  grantedForTable(organizationId: string, tableName: string): Promise<DataStoreShare[]> {
    return this.db.getRepository(DataStoreShare).find({
      where: { organizationId, tableName, revokedAt: IsNull() },
      order: { createdAt: 'ASC' },
      take: MAX_ACTIVE_SHARES,
    });
  }

  /** The active share from `ownerOrganizationId` to `organizationId` of the table named `name` (the owner's name or the alias). */
  async findReceived(organizationId: string, ownerOrganizationId: string, name: string): Promise<DataStoreShare | null> {
    const found = await this.db.getRepository(DataStoreShare).find({
      where: [
        { sharedToOrganizationId: organizationId, ownerOrganizationId, tableName: name, revokedAt: IsNull() },
        { sharedToOrganizationId: organizationId, ownerOrganizationId, alias: name, revokedAt: IsNull() },
      ],
      take: 2,
    });
    // The owner's own name wins over an alias that happens to equal another of its tables' names.
    return found.find((s) => s.tableName === name) ?? found[0] ?? null;
  }

  /** The table an active alias of the organization names, or null when the name is no alias. */
  async receivedTable(organizationId: string, alias: string): Promise<ReceivedTable | null> {
    // Plain SQL: every data store write asks this, and building it through the query builder cost more than running it.
    const rows: ReceivedTable[] = await this.db.query(
      `SELECT id AS "shareId", owner_organization_id AS "ownerOrganizationId", table_name AS "tableName"
         FROM data_store_shares WHERE shared_to_organization_id = $1 AND alias = $2 AND revoked_at IS NULL`,
      [organizationId, alias],
    );
    return rows[0] ?? null;
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
    const rows = await this.db.getRepository(DataStoreShare).find({ select: { id: true }, where: { id: In(ids), revokedAt: IsNull() } });
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Marks an active share revoked, in a short transaction of its own: every
   * read checks the share, so from its commit on nothing more is answered.
   * Either side may end it: the granting organization revokes, the recipient
   * removes a share it received. Null when neither has such an active share.
   */
  async revoke(organizationId: string, id: string): Promise<DataStoreShare | null> {
    return this.db.transaction(async (m) => {
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
