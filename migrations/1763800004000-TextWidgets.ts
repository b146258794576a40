import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Text tiles (issue 40): a widget of chart type `text` holds Markdown in its
 * display_config and has no data source and no query, so both columns may be
 * NULL, for text widgets only (every other chart type still needs both).
 */
export class TextWidgets1763800004000 implements MigrationInterface {
  name = 'TextWidgets1763800004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dashboard_widgets ALTER COLUMN data_source_id DROP NOT NULL, ALTER COLUMN query_config DROP NOT NULL`);
    await q.query(`
      ALTER TABLE dashboard_widgets ADD CONSTRAINT dashboard_widgets_text_has_no_data
        CHECK (CASE WHEN chart_type = 'text' THEN data_source_id IS NULL AND query_config IS NULL
                    ELSE data_source_id IS NOT NULL AND query_config IS NOT NULL END)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM dashboard_widgets WHERE chart_type = 'text'`);
    await q.query(`ALTER TABLE dashboard_widgets DROP CONSTRAINT dashboard_widgets_text_has_no_data`);
    await q.query(`ALTER TABLE dashboard_widgets ALTER COLUMN data_source_id SET NOT NULL, ALTER COLUMN query_config SET NOT NULL`);
  }
}
