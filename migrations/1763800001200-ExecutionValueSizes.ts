import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What lets execution reads stay small without reading large values: each
 * execution's input summary (size, count and first keys) for lists, and each
 * step record's input and output sizes, so a single read inlines only values
 * under the limit. Sizes are octets of the value's text as PostgreSQL renders
 * it (`value::text`), exactly what the step value routes answer; the writer
 * (ExecutionsRepository) measures the same way. The bounds (10 keys, 64
 * characters each) repeat the repository's: a migration keeps its own copy.
 *
 * The columns stay nullable: a process of the previous version still running
 * during an upgrade writes rows without them, and readers cope (step records
 * are therefore left as they are: a read measures them).
 */
export class ExecutionValueSizes1763800001200 implements MigrationInterface {
  name = 'ExecutionValueSizes1763800001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions ADD COLUMN input_bytes integer, ADD COLUMN input_key_count integer, ADD COLUMN input_keys text[]`);
    await q.query(`ALTER TABLE execution_steps ADD COLUMN input_bytes integer, ADD COLUMN output_bytes integer`);
    // In batches: each statement stays well inside the statement timeout however many runs there are.
    for (;;) {
      const [, updated]: [unknown, number] = await q.query(`
        UPDATE executions SET
          input_bytes = octet_length(input::text),
          input_key_count = CASE WHEN jsonb_typeof(input) = 'object' THEN (SELECT count(*) FROM jsonb_object_keys(input))::int ELSE 0 END,
          input_keys = CASE WHEN jsonb_typeof(input) = 'object'
            THEN ARRAY(SELECT left(k, 64) FROM jsonb_object_keys(input) WITH ORDINALITY AS t(k, n) ORDER BY n LIMIT 10)
            ELSE '{}'::text[] END
        WHERE id IN (SELECT id FROM executions WHERE input_bytes IS NULL LIMIT 5000)`);
      if (updated === 0) break;
    }
    // Step records are not backfilled: a read measures a row without sizes in the database (ExecutionsRepository).
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE execution_steps DROP COLUMN input_bytes, DROP COLUMN output_bytes`);
    await q.query(`ALTER TABLE executions DROP COLUMN input_bytes, DROP COLUMN input_key_count, DROP COLUMN input_keys`);
  }
}
