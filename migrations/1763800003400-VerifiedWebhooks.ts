import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Verified webhook ingress. A trigger may carry a signature scheme
 * (`verification`, without its secret) and its signing secrets, encrypted
 * under the organization's data key like connection configs: a JSON list,
 * the current secret first, older ones with the instant their overlap ends
 * (the last of those instants is also kept in the clear, for the API to show).
 * `deduplication` says where a delivery's id is and for how long it counts.
 * An execution started by a delivery keeps the delivery's id, so runs can be
 * found by it (indexed by the next migration).
 */
export class VerifiedWebhooks1763800003400 implements MigrationInterface {
  name = 'VerifiedWebhooks1763800003400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_triggers
        ADD COLUMN verification jsonb,
        ADD COLUMN signing_secrets text,
        ADD COLUMN signing_secret_set_at timestamptz,
        ADD COLUMN signing_overlap_until timestamptz,
        ADD COLUMN deduplication jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE executions ADD COLUMN delivery_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP COLUMN delivery_id`);
    await q.query(`
      ALTER TABLE webhook_triggers
        DROP COLUMN verification, DROP COLUMN signing_secrets, DROP COLUMN signing_secret_set_at, DROP COLUMN signing_overlap_until, DROP COLUMN deduplication`);
  }
}
