import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One event per wait, whichever way it comes: a member's event and a resume
 * link's use claim the same column, so of any number sent at once exactly
 * one is accepted. Links claimed before it stay claimed. `link_claimed_at`
 * stays for a version still running beside this one during an upgrade; a
 * later migration drops it.
 */
export class WaitEventClaims1763800003700 implements MigrationInterface {
  name = 'WaitEventClaims1763800003700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_waits ADD COLUMN event_claimed_at timestamptz`);
    await q.query(`UPDATE execution_waits SET event_claimed_at = link_claimed_at WHERE link_claimed_at IS NOT NULL AND ended_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_waits DROP COLUMN event_claimed_at`);
  }
}
