import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AccessToken } from '../auth/access-token.entity';
import { Membership } from '../auth/membership.entity';
import { User } from '../auth/user.entity';
import { Connection } from '../connections/connection.entity';
import { DataSource as AnalyticsDataSource } from '../data-sources/data-source.entity';
import { EnvironmentVariable } from '../environments/environment-variable.entity';
import { Environment } from '../environments/environment.entity';
import { OrganizationKey } from '../crypto/organization-key.entity';
import { Organization } from '../organizations/organization.entity';
import { WebhookTrigger } from '../webhooks/webhook-trigger.entity';
import { WorkflowVersion } from '../workflows/workflow-version.entity';
import { Workflow } from '../workflows/workflow.entity';
import { migrations } from '../../migrations';

export const entities = [Organization, OrganizationKey, User, Membership, AccessToken, Connection, Environment, EnvironmentVariable, Workflow, WorkflowVersion, WebhookTrigger, AnalyticsDataSource];

/** Builds (does not connect) the one DataSource of a process. Schema changes only through migrations. */
export function createDataSource(url: string, options: { poolSize?: number } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    logging: false,
    // At least two: openDatabase holds one connection for the migration lock while migrations use another.
    extra: { max: Math.max(2, options.poolSize ?? 10) },
  });
}

/** Arbitrary constant: the advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK = 7_310_042;

/**
 * Connects and applies pending migrations. The API and the worker may start
 * together; an advisory lock makes the second wait, then find nothing to do.
 */
export async function openDatabase(url: string, options: { poolSize?: number } = {}): Promise<DataSource> {
  const dataSource = createDataSource(url, options);
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
  }
  return dataSource;
}
