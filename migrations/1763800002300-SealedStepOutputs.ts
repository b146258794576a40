import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A step's output as it was, when masking changed it (a value built from a
 * secret), encrypted under the organization's key: later steps of the run
 * read it, so a derived credential keeps working, while `output` (what the
 * API shows and Temporal's history carries) stays masked.
 */
export class SealedStepOutputs1763800002300 implements MigrationInterface {
  name = 'SealedStepOutputs1763800002300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_steps ADD COLUMN sealed_output text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_steps DROP COLUMN sealed_output`);
  }
}
