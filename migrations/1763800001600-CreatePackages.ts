import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Installed packages (src/packages) and what each installed. A package is
 * known by its name in an organization; its items (workflows, data sources,
 * dashboards) point at the resources it created, each owned by one package
 * at most, and go when the resource is deleted by hand. The dashboards list
 * hides the dashboards of packages installed only as dependencies by joining
 * these two tables (package_items_dashboard_id_key serves that lookup).
 */
export class CreatePackages1763800001600 implements MigrationInterface {
  name = 'CreatePackages1763800001600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE packages (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text COLLATE "C" NOT NULL,
        version text NOT NULL,
        description text NOT NULL DEFAULT '',
        dependencies jsonb NOT NULL DEFAULT '{}',
        installed_as text NOT NULL CHECK (installed_as IN ('direct', 'dependency')),
        installed_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT packages_org_name_key UNIQUE (organization_id, name),
        CONSTRAINT packages_org_id_key UNIQUE (organization_id, id)
      )`);
    await q.query(`
      CREATE TABLE package_items (
        package_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('workflow', 'data_source', 'dashboard')),
        name text NOT NULL,
        workflow_id uuid CONSTRAINT package_items_workflow_id_key UNIQUE REFERENCES workflows(id) ON DELETE CASCADE,
        data_source_id uuid CONSTRAINT package_items_data_source_id_key UNIQUE REFERENCES data_sources(id) ON DELETE CASCADE,
        dashboard_id uuid CONSTRAINT package_items_dashboard_id_key UNIQUE REFERENCES dashboards(id) ON DELETE CASCADE,
        widget_ids jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (package_id, kind, name),
        CONSTRAINT package_items_package_fkey FOREIGN KEY (organization_id, package_id) REFERENCES packages (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT package_items_one_target CHECK (
          (kind = 'workflow') = (workflow_id IS NOT NULL)
          AND (kind = 'data_source') = (data_source_id IS NOT NULL)
          AND (kind = 'dashboard') = (dashboard_id IS NOT NULL))
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE package_items`);
    await q.query(`DROP TABLE packages`);
  }
}
