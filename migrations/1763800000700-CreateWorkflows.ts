import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Workflows and their versions: every update of a definition adds a version
 * and moves `current_version`; a run keeps the version it started with.
 */
export class CreateWorkflows1763800000700 implements MigrationInterface {
  name = 'CreateWorkflows1763800000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflows (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        current_version integer NOT NULL,
        default_environment_id uuid REFERENCES environments(id) ON DELETE SET NULL,
        created_by uuid NOT NULL REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflows_org_name_key UNIQUE (organization_id, name)
      )`);
    await q.query(`
      CREATE TABLE workflow_versions (
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        version integer NOT NULL,
        definition jsonb NOT NULL,
        created_by uuid NOT NULL REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workflow_versions`);
    await q.query(`DROP TABLE workflows`);
  }
}
