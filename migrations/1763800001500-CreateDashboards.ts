import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Dashboards and their widgets (interface.md 2.4, 2.5). Names are unique per
 * organization, and at most one dashboard per organization is the default:
 * a partial unique index enforces it, so two requests racing to make
 * different dashboards the default cannot both win (the service serializes
 * them first; the index is the backstop).
 */
export class CreateDashboards1763800001500 implements MigrationInterface {
  name = 'CreateDashboards1763800001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dashboards (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        is_default boolean NOT NULL DEFAULT false,
        layout jsonb NOT NULL DEFAULT '[]',
        filter_config jsonb NOT NULL DEFAULT '[]',
        filter_defaults jsonb NOT NULL DEFAULT '{}',
        timezone text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT dashboards_org_name_key UNIQUE (organization_id, name),
        -- The target of the widgets' (organization_id, dashboard_id) key: a widget cannot hang under another organization's dashboard.
        CONSTRAINT dashboards_org_id_key UNIQUE (organization_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX dashboards_one_default_key ON dashboards (organization_id) WHERE is_default`);
    await q.query(`CREATE INDEX dashboards_org_created ON dashboards (organization_id, created_at DESC, id DESC)`);

    // data_source_id has no foreign key, on purpose: deleting a data source leaves its widgets as they are (their
    // dashboards keep their shape), and reading such a widget's data fails with 400 widget_source_unavailable naming
    // the widget (src/dashboards/widget-sources.ts), rather than the widget vanishing or its id turning NULL.
    await q.query(`
      CREATE TABLE dashboard_widgets (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        dashboard_id uuid NOT NULL,
        title text NOT NULL,
        chart_type text NOT NULL,
        data_source_id uuid NOT NULL,
        query_config jsonb NOT NULL,
        display_config jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT dashboard_widgets_dashboard_fkey FOREIGN KEY (organization_id, dashboard_id)
          REFERENCES dashboards (organization_id, id) ON DELETE CASCADE
      )`);
    // A dashboard's widgets, oldest first.
    await q.query(`CREATE INDEX dashboard_widgets_dashboard ON dashboard_widgets (dashboard_id, created_at, id)`);
    // The widgets over one source (what a deleted source or a revoked share affects).
    await q.query(`CREATE INDEX dashboard_widgets_source ON dashboard_widgets (organization_id, data_source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dashboard_widgets`);
    await q.query(`DROP TABLE dashboards`);
  }
}
