import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Webhook triggers: a URL slug unique per organization; the secret is kept only as its SHA-256. */
export class CreateWebhookTriggers1763800000800 implements MigrationInterface {
  name = 'CreateWebhookTriggers1763800000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_triggers (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        name text NOT NULL,
        method text NOT NULL,
        authentication boolean NOT NULL DEFAULT false,
        secret_hash text,
        secret_set_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_triggers_org_name_key UNIQUE (organization_id, name),
        CONSTRAINT webhook_triggers_secret_when_authenticated CHECK (NOT authentication OR secret_hash IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX webhook_triggers_workflow ON webhook_triggers (workflow_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_triggers`);
  }
}
