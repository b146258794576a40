import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { qualified } from '../src/db/sql';

/**
 * Shares end with the standing of the member who granted them, and owners
 * choose aliases without learning the recipient's names.
 *
 * - The alias is no longer unique among a recipient's active shares: a
 *   unique index would tell an owner whether the recipient already receives
 *   a table under that name. The recipient resolves it (its own tables
 *   first, then the earliest active share), so the index only serves that lookup.
 * - Active shares whose granter is no longer a member of the granting
 *   organization are revoked: before this, removing a member left their
 *   shares open. Their recipients' sources are closed as a revocation closes
 *   them: disabled, and their serving relations emptied. Shares granted by
 *   members who are still there stay, whatever their role; they end when
 *   that member leaves or loses shares:admin.
 */
export class SharesEndWithGranters1763800002200 implements MigrationInterface {
  name = 'SharesEndWithGranters1763800002200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX data_store_shares_alias_key`);
    await q.query(`CREATE INDEX data_store_shares_received_alias ON data_store_shares (shared_to_organization_id, alias, created_at) WHERE revoked_at IS NULL`);
    const orphaned: Array<{ id: string }> = await q.query(`
      UPDATE data_store_shares s SET revoked_at = now(), updated_at = now()
       WHERE s.revoked_at IS NULL AND s.user_id IS NOT NULL
         AND NOT EXISTS (SELECT FROM memberships m WHERE m.organization_id = s.organization_id AND m.user_id = s.user_id)
      RETURNING s.id`);
    if (orphaned.length === 0) return;
    const ids = orphaned.map((r) => r.id);
    const [sources]: [Array<{ serving_relation: string }>] = await q.query(
      `UPDATE data_sources SET enabled = false, updated_at = now() WHERE share_id = ANY($1::uuid[]) RETURNING serving_relation`,
      [ids],
    );
    for (const source of sources) await q.query(`DELETE FROM ${qualified(source.serving_relation)}`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Revoked shares stay revoked: reopening access to data is never a migration's decision.
    await q.query(`DROP INDEX data_store_shares_received_alias`);
    await q.query(`CREATE UNIQUE INDEX data_store_shares_alias_key ON data_store_shares (shared_to_organization_id, alias) WHERE revoked_at IS NULL`);
  }
}
