import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What an `ai.llm-call` step, an `ai.agent` step and each of the agent's model
 * calls used (issue 41): `{ provider, model, inputTokens, outputTokens, cost }`
 * (an agent step's the sums of its calls, with `calls`), written with the
 * step's record; NULL for every other step and for records written before.
 * Kept apart from the output so a run's totals never load step values.
 */
export class StepUsage1763800004200 implements MigrationInterface {
  name = 'StepUsage1763800004200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_steps ADD COLUMN usage jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_steps DROP COLUMN usage`);
  }
}
