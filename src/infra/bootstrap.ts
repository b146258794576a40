import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Config } from '../config/config';
import { loadMasterKeyring } from '../crypto/master-key-source';
import type { MasterKeyring } from '../crypto/master-keyring';
import { openDatabase } from '../db/data-source';
import type { Logger } from '../logging/logger';
import { startEmbeddedPostgres } from './embedded-postgres';
import { startTemporalDevServer } from './temporal-dev-server';

export interface Backends {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  db: DataSource;
  keyring: MasterKeyring;
  /** Stops what this process started (database pool, embedded servers). */
  close(): Promise<void>;
}

/**
 * Connects to PostgreSQL and Temporal, starting embedded ones for whichever of
 * DATABASE_URL and TEMPORAL_ADDRESS is unset, then applies migrations.
 */
export async function startBackends(config: Config, logger: Logger, options: { temporal?: boolean } = {}): Promise<Backends> {
  const stops: Array<() => Promise<void>> = [];
  let databaseUrl = config.database.url;
  if (!databaseUrl) {
    const dir = path.join(config.dataDir, 'postgres');
    logger.info({ dir, port: config.database.embeddedPort }, 'DATABASE_URL unset: starting embedded PostgreSQL');
    const pg = await startEmbeddedPostgres({
      dir,
      port: config.database.embeddedPort,
      database: 'flowbase',
      persistent: true,
      onLog: (line) => logger.debug({ component: 'postgres' }, line.trim()),
    });
    databaseUrl = pg.url;
    stops.push(pg.stop);
  }
  let temporalAddress = config.temporal.address;
  let temporalUiUrl: string | undefined;
  if (!temporalAddress && options.temporal !== false) {
    logger.info({ port: config.temporal.embeddedPort }, 'TEMPORAL_ADDRESS unset: starting Temporal dev server');
    const temporal = await startTemporalDevServer({
      port: config.temporal.embeddedPort,
      uiPort: config.temporal.embeddedUiPort,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      journal: config.temporal.embeddedJournal,
      onLog: (line) => logger.debug({ component: 'temporal' }, line.trim()),
    });
    temporalAddress = temporal.address;
    temporalUiUrl = temporal.uiUrl;
    stops.push(temporal.stop);
  }
  const keyring = loadMasterKeyring(config, logger);
  const db = await openDatabase(databaseUrl, { timeouts: config.database });
  stops.push(() => db.destroy());
  return {
    databaseUrl,
    temporalAddress: temporalAddress ?? '',
    temporalUiUrl,
    db,
    keyring,
    close: async () => {
      for (const stop of stops.reverse()) await stop().catch((err) => logger.warn({ err: String(err) }, 'shutdown step failed'));
    },
  };
}
