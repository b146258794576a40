import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The answer a return step gives a waiting caller, when it holds secret
 * values: encrypted under the organization's key, outside Temporal history
 * (which holds the masked answer), and read once by the webhook host.
 */
export class CreateExecutionAnswers1763800001400 implements MigrationInterface {
  name = 'CreateExecutionAnswers1763800001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE execution_answers (
        execution_id text PRIMARY KEY REFERENCES executions(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX execution_answers_created_idx ON execution_answers (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE execution_answers`);
  }
}
