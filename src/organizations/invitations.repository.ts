import type { DataSource, EntityManager } from 'typeorm';
import type { Role } from '../auth/roles';

export interface InvitationRow {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: Role;
  invitedBy: string | null;
  expiresAt: Date;
  createdAt: Date;
}

const COLUMNS = `id, organization_id AS "organizationId", email, name, role, invited_by AS "invitedBy",
  expires_at AS "expiresAt", created_at AS "createdAt"`;

/** An invitation that can still be accepted: not accepted, not revoked, not expired. */
const OPEN = `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`;

/** What an invitation link shows before it is accepted (InvitationsService.preview). */
export interface InvitationPreviewRow {
  organizationName: string;
  inviterName: string | null;
  inviterEmail: string | null;
  role: Role;
  email: string;
  expiresAt: Date;
}

/** Invitations to join an organization; every read is scoped to the organization, except the lookup by secret code. */
export class InvitationsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Inserts the invitation, or replaces the open one for the same address
   * (inviting again gives a new code, role and expiry; the old code stops
   * working). One statement, so two invitations racing for one address
   * leave one. Returns the invitation's id.
   */
  async upsertOpen(row: InvitationRow & { codeHash: string }, manager: EntityManager): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO invitations (id, organization_id, email, name, role, code_hash, invited_by, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (organization_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL
       DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role, code_hash = EXCLUDED.code_hash, invited_by = EXCLUDED.invited_by,
                     expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
       RETURNING id`,
      [row.id, row.organizationId, row.email, row.name, row.role, row.codeHash, row.invitedBy, row.expiresAt, row.createdAt],
    );
    return rows[0].id;
  }

  /** Open invitations, newest first, at most `limit`. */
  async listOpen(organizationId: string, page: { limit: number; offset: number }): Promise<{ total: number; data: InvitationRow[] }> {
    const [data, [{ total }]] = await Promise.all([
      this.db.query(`SELECT ${COLUMNS} FROM invitations WHERE organization_id = $1 AND ${OPEN} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [
        organizationId,
        page.limit,
        page.offset,
      ]),
      this.db.query(`SELECT count(*)::int AS total FROM invitations WHERE organization_id = $1 AND ${OPEN}`, [organizationId]),
    ]);
    return { total, data };
  }

  /** Revokes an open invitation; undefined when there is none with this id here. */
  async revoke(organizationId: string, id: string): Promise<InvitationRow | undefined> {
    const [rows] = await this.db.query(`UPDATE invitations SET revoked_at = now() WHERE organization_id = $1 AND id = $2 AND ${OPEN} RETURNING ${COLUMNS}`, [
      organizationId,
      id,
    ]);
    return rows[0];
  }

  /** The open invitation with this code, locked until the transaction ends so it is accepted once. */
  async lockOpenByCode(codeHash: string, manager: EntityManager): Promise<InvitationRow | undefined> {
    const rows: InvitationRow[] = await manager.query(`SELECT ${COLUMNS} FROM invitations WHERE code_hash = $1 AND ${OPEN} FOR UPDATE`, [codeHash]);
    return rows[0];
  }

  /**
   * The open invitation with this code, with its organization's name and its
   * inviter (none once the inviter's account is gone), read without a lock.
   */
  async findOpenPreview(codeHash: string): Promise<InvitationPreviewRow | undefined> {
    const rows: InvitationPreviewRow[] = await this.db.query(
      `SELECT o.name AS "organizationName", u.name AS "inviterName", u.email AS "inviterEmail", i.role, i.email, i.expires_at AS "expiresAt"
         FROM invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN users u ON u.id = i.invited_by
        WHERE i.code_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`,
      [codeHash],
    );
    return rows[0];
  }

  async markAccepted(id: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1`, [id, userId]);
  }
}
