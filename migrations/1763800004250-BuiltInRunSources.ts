import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { createBuiltInSources } from '../src/data-sources/built-in-sources';

/**
 * Runs as data (issue 41): every organization gets its built-in, read-only
 * sources over its own runs (src/data-sources/runs-source.ts), one of each
 * type, as new organizations get them when they are created. Their Cube
 * models read `executions` and `execution_steps` by organization and start
 * time, which executions_org_started and the steps' primary key serve: no new
 * index on the run tables.
 */
export class BuiltInRunSources1763800004250 implements MigrationInterface {
  name = 'BuiltInRunSources1763800004250';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX data_sources_built_in_key ON data_sources (organization_id, type) WHERE type LIKE 'flowbase:%'`);
    const organizations: Array<{ id: string }> = await q.query(`SELECT id FROM organizations ORDER BY id`);
    for (const { id } of organizations) await createBuiltInSources(q, id);
  }

  async down(q: QueryRunner): Promise<void> {
    // Widgets over them stay, as they do when any source is deleted (dashboard_widgets.data_source_id has no foreign key).
    await q.query(`DELETE FROM data_sources WHERE type LIKE 'flowbase:%'`);
    await q.query(`DROP INDEX data_sources_built_in_key`);
  }
}
