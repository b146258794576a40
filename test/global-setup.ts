import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { startTemporalDevServer } from '../src/infra/temporal-dev-server';
import { openDatabase } from '../src/db/data-source';

/**
 * Starts a real PostgreSQL and a real Temporal dev server for the suite,
 * unless TEST_DATABASE_URL / TEST_TEMPORAL_ADDRESS point at running ones.
 * Test files read the addresses from the environment set here.
 */
export default async function globalSetup(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  let databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-test-pg-'));
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'data'), port: await freePort(), database: 'flowbase_test', persistent: false });
    databaseUrl = pg.url;
    stops.push(async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
  }
  let temporalAddress = process.env.TEST_TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const uiPort = await freePort();
    const temporal = await startTemporalDevServer({ port: await freePort(), uiPort });
    temporalAddress = temporal.address;
    // Its Web UI, which executions link to (the console's "Open in Temporal").
    process.env.TEMPORAL_UI_URL = process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${uiPort}`;
    stops.push(temporal.stop);
  }
  // Migrate once here so test files do not race each other doing it.
  const db = await openDatabase(databaseUrl);
  await db.destroy();

  process.env.DATABASE_URL = databaseUrl;
  process.env.TEMPORAL_ADDRESS = temporalAddress;
  process.env.MASTER_KEY = randomBytes(32).toString('base64');
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.NODE_ENV = 'test';
  (globalThis as { __flowbaseStops?: typeof stops }).__flowbaseStops = stops;
}
