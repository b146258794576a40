import { randomBytes } from 'node:crypto';
import { openDatabase } from '../src/db/data-source';
import { ensurePostgres, ensureTemporal, ensureWorkflowBundle } from './suite-services';

/**
 * The integration tier's services: a real PostgreSQL and a real Temporal dev
 * server (unless TEST_DATABASE_URL / TEST_TEMPORAL_ADDRESS point at running
 * ones) and the workflow bundle, once per jest run. Test files read the
 * addresses from the environment set here.
 */
export default async function globalSetup(): Promise<void> {
  const [databaseUrl, temporal, bundle] = await Promise.all([ensurePostgres(), ensureTemporal(), ensureWorkflowBundle()]);
  // Migrate once here so test files do not race each other doing it.
  const db = await openDatabase(databaseUrl);
  await db.destroy();

  process.env.DATABASE_URL = databaseUrl;
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;
  // Its Web UI, which executions link to (the console's "Open in Temporal").
  if (temporal.uiUrl) process.env.TEMPORAL_UI_URL = process.env.TEMPORAL_UI_URL ?? temporal.uiUrl;
  process.env.MASTER_KEY = randomBytes(32).toString('base64');
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.NODE_ENV = 'test';
}
