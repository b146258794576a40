import 'reflect-metadata';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { AccessToken } from '../auth/access-token.entity';
import { Membership } from '../auth/membership.entity';
import { User } from '../auth/user.entity';
import { Connection } from '../connections/connection.entity';
import { AnalyticsSource } from '../data-sources/analytics-source.entity';
import { DashboardWidget } from '../dashboards/dashboard-widget.entity';
import { Dashboard } from '../dashboards/dashboard.entity';
import { EnvironmentVariable } from '../environments/environment-variable.entity';
import { Environment } from '../environments/environment.entity';
import { OrganizationKey } from '../crypto/organization-key.entity';
import { watchDatabasePool } from '../observability/metrics';
import { Organization } from '../organizations/organization.entity';
import { PackageItem } from '../packages/package-item.entity';
import { InstalledPackage } from '../packages/package.entity';
import { ScheduleTrigger } from '../schedules/schedule-trigger.entity';
import { DataStoreShare } from '../shares/share.entity';
import { WebhookTrigger } from '../webhooks/webhook-trigger.entity';
import { WorkflowVersion } from '../workflows/workflow-version.entity';
import { Workflow } from '../workflows/workflow.entity';
import { migrations } from '../../migrations';
import { type DatabaseTimeouts, IDLE_IN_TRANSACTION_MS, LONG_STATEMENT_TIMEOUT_SETTING } from './statement-timeouts';

export const entities = [
  Organization,
  OrganizationKey,
  User,
  Membership,
  AccessToken,
  Connection,
  Environment,
  EnvironmentVariable,
  Workflow,
  WorkflowVersion,
  WebhookTrigger,
  ScheduleTrigger,
  AnalyticsSource,
  Dashboard,
  DataStoreShare,
  DashboardWidget,
  InstalledPackage,
  PackageItem,
];

export interface DatabaseOptions {
  poolSize?: number;
  /**
   * config.database's bounds: the pool's statements end after
   * statementTimeoutMs, migrations after longStatementTimeoutMs. Left out
   * only by tooling (the test suite's one-off migration): no bound at all.
   */
  timeouts?: DatabaseTimeouts;
  /** How the pool's connections show in pg_stat_activity. */
  applicationName?: string;
}

/** Builds (does not connect) the one DataSource of a process. Schema changes only through migrations. */
export function createDataSource(url: string, options: DatabaseOptions = {}): DataSource {
  const { timeouts } = options;
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    logging: false,
    // Startup parameters: the session defaults of every connection, which RESET and the end of a SET LOCAL return to.
    extra: {
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? 'flowbase',
      ...(timeouts ? { statement_timeout: timeouts.statementTimeoutMs, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS } : {}),
      // What allowLongStatements lifts statement_timeout to (0: no bound, as without timeouts).
      options: `-c ${LONG_STATEMENT_TIMEOUT_SETTING}=${timeouts?.longStatementTimeoutMs ?? 0}`,
    },
  });
}

/** Arbitrary constant: the advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK = 7_310_042;

/**
 * Applies pending migrations, then connects the service's pool. The API and
 * the worker may start together; an advisory lock makes the second wait,
 * then find nothing to do.
 */
export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<DataSource> {
  await migrate(url, options.timeouts);
  const dataSource = createDataSource(url, options);
  await dataSource.initialize();
  // The pool pg-based drivers keep as `master`; read at each metrics scrape, dropped once the data source is destroyed.
  watchDatabasePool(() => (dataSource.isInitialized ? (dataSource.driver as PostgresDriver).master : undefined));
  return dataSource;
}

/**
 * Migrations may rewrite big tables, so they run on a short-lived pool of
 * their own whose every statement has the long bound: the service's pool
 * keeps the short one, and no session setting has to be undone.
 */
async function migrate(url: string, timeouts: DatabaseTimeouts | undefined): Promise<void> {
  const long = timeouts && { statementTimeoutMs: timeouts.longStatementTimeoutMs, longStatementTimeoutMs: timeouts.longStatementTimeoutMs };
  // Two connections: one holds the migration lock while migrations run on the other.
  const dataSource = createDataSource(url, { poolSize: 2, timeouts: long, applicationName: 'flowbase-migrations' });
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}
