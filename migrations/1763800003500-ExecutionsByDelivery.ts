import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An organization's runs of a delivery id: what tells a webhook delivery's
 * retry from a new delivery (one probe per call that names an id), and the
 * executions list's deliveryId filter. Partial (most runs have none) and
 * built CONCURRENTLY (so outside a transaction): runs keep being written
 * while it builds.
 */
export class ExecutionsByDelivery1763800003500 implements MigrationInterface {
  name = 'ExecutionsByDelivery1763800003500';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS executions_org_delivery_idx ON executions (organization_id, delivery_id) WHERE delivery_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS executions_org_delivery_idx`);
  }
}
