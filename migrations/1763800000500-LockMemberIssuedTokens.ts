import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** A token minted for a user by another member acts only in the organization it was minted in. */
export class LockMemberIssuedTokens1763800000500 implements MigrationInterface {
  name = 'LockMemberIssuedTokens1763800000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_tokens ADD COLUMN issued_by uuid REFERENCES users(id) ON DELETE SET NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_tokens DROP COLUMN issued_by`);
  }
}
