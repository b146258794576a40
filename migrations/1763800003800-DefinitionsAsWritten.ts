import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Workflow definitions come back with their keys in the order they were
 * written (issue 39): `json` keeps the text as stored, where `jsonb` sorts
 * each object's keys (shorter first). Versions stored before keep jsonb's
 * order, the only one left of them; nothing queries the column with jsonb's
 * operators or indexes it. The change rewrites the table under its lock: one
 * row per saved version, so a short one.
 */
export class DefinitionsAsWritten1763800003800 implements MigrationInterface {
  name = 'DefinitionsAsWritten1763800003800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_versions ALTER COLUMN definition TYPE json USING definition::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_versions ALTER COLUMN definition TYPE jsonb USING definition::jsonb`);
  }
}
