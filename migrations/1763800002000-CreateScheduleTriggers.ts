import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Schedule triggers: a cron expression (with its time zone) or a fixed
 * interval, each backed by a Temporal Schedule. A deleted environment leaves
 * its triggers on the workflow's default (SET NULL); a deleted workflow takes
 * its triggers with it (the service deletes their schedules first).
 */
export class CreateScheduleTriggers1763800002000 implements MigrationInterface {
  name = 'CreateScheduleTriggers1763800002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE schedule_triggers (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        name text NOT NULL,
        cron text,
        timezone text NOT NULL DEFAULT 'UTC',
        interval_seconds integer,
        initial jsonb NOT NULL DEFAULT '{}',
        environment_id uuid REFERENCES environments(id) ON DELETE SET NULL,
        overlap_policy text NOT NULL CHECK (overlap_policy IN ('skip', 'buffer_one', 'allow_all')),
        catchup_window_seconds integer NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT schedule_triggers_org_name_key UNIQUE (organization_id, name),
        CONSTRAINT schedule_triggers_cron_or_interval CHECK ((cron IS NULL) <> (interval_seconds IS NULL))
      )`);
    await q.query(`CREATE INDEX schedule_triggers_workflow ON schedule_triggers (organization_id, workflow_id)`);
    // A trigger's read shows its last runs.
    await q.query(`CREATE INDEX executions_trigger_started ON executions (organization_id, trigger_id, started_at DESC) WHERE trigger_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX executions_trigger_started`);
    await q.query(`DROP TABLE schedule_triggers`);
  }
}
