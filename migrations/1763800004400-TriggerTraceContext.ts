import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Whether a webhook trigger continues a caller's W3C trace (issue 41): `honour` makes the call's spans children of
 * the caller's `traceparent`, `ignore` starts a trace of the service's own. Existing triggers honour it, as W3C
 * Trace Context asks of a server.
 */
export class TriggerTraceContext1763800004400 implements MigrationInterface {
  name = 'TriggerTraceContext1763800004400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_triggers ADD COLUMN trace_context text NOT NULL DEFAULT 'honour' CHECK (trace_context IN ('honour', 'ignore'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_triggers DROP COLUMN trace_context`);
  }
}
