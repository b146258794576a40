import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Drafts of workflows (issue 39): one per workflow and person, saved as they
 * edit, published as the next version. The definition is `json`, kept as
 * written (a draft may be unfinished, so nothing here checks it); pins are the
 * step outputs later steps are tested against. A run of a draft (a test of a
 * step or of the whole draft) is marked `draft` on its execution: its steps
 * are not any version's, so it is neither rerun nor replayed.
 */
export class WorkflowDrafts1763800003900 implements MigrationInterface {
  name = 'WorkflowDrafts1763800003900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_drafts (
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        base_version integer NOT NULL,
        definition json NOT NULL,
        pins jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workflow_id, user_id)
      )`);
    await q.query(`CREATE INDEX workflow_drafts_organization ON workflow_drafts (organization_id)`);
    await q.query(`ALTER TABLE executions ADD COLUMN draft boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP COLUMN draft`);
    await q.query(`DROP TABLE workflow_drafts`);
  }
}
