import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Config, EmbeddedServer } from '../config/config';
import { loadMasterKeyring } from '../crypto/master-key-source';
import type { MasterKeyring } from '../crypto/master-keyring';
import { openDatabase } from '../db/data-source';
import type { Logger } from '../logging/logger';
import { embeddedPostgresUrl, runningPostgres, startEmbeddedPostgres } from './embedded-postgres';
import { alreadyRunningMessage, embeddedPorts, PORTS_FILE, runningTemporal } from './embedded-ports';
import { StartupError } from './startup-error';
import { startTemporalDevServer } from './temporal-dev-server';

/** The embedded server's database. */
const DATABASE = 'flowbase';

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
 * DATABASE_URL and TEMPORAL_ADDRESS is unset, then applies migrations. The
 * embedded servers' ports are settled first, all of them, before anything
 * starts or connects (src/infra/embedded-ports.ts): a port in use, or this
 * DATA_DIR's servers already running, stop the start with a StartupError.
 * `shareRunning` (`npm run admin`): this DATA_DIR's PostgreSQL, already
 * running (the service's), is used rather than refused.
 */
export async function startBackends(config: Config, logger: Logger, options: { temporal?: boolean; shareRunning?: boolean } = {}): Promise<Backends> {
  const pgDir = path.join(config.dataDir, 'postgres');
  const running = config.database.url ? undefined : runningPostgres(pgDir);
  if (running && !options.shareRunning) {
    const temporal = config.temporal.address ? undefined : runningTemporal(config.dataDir);
    throw new StartupError(alreadyRunningMessage(config.dataDir, temporal ? [running, temporal] : [running]));
  }
  const servers: EmbeddedServer[] = [];
  if (!config.database.url && !running) servers.push('postgres');
  if (!config.temporal.address && options.temporal !== false) servers.push('temporal', 'temporalUi');
  const ports = servers.length > 0 ? await embeddedPorts({ dataDir: config.dataDir, explicit: config.embeddedPorts, servers, logger }) : {};

  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => logger.warn({ err: String(err) }, 'shutdown step failed'));
  };
  try {
    let databaseUrl = config.database.url;
    if (running) {
      logger.info(
        { dir: pgDir, port: running.port, pid: running.server.pid },
        "DATABASE_URL unset: using this DATA_DIR's embedded PostgreSQL, already running",
      );
      databaseUrl = embeddedPostgresUrl(pgDir, running.port, DATABASE);
    } else if (!databaseUrl) {
      logger.info({ dir: pgDir, port: ports.postgres }, 'DATABASE_URL unset: starting embedded PostgreSQL');
      const pg = await startEmbeddedPostgres({
        dir: pgDir,
        port: ports.postgres!,
        database: DATABASE,
        persistent: true,
        onLog: (line) => logger.debug({ component: 'postgres' }, line.trim()),
      });
      databaseUrl = pg.url;
      stops.push(pg.stop);
    }
    let temporalAddress = config.temporal.address;
    let temporalUiUrl: string | undefined;
    if (!temporalAddress && options.temporal !== false) {
      logger.info({ port: ports.temporal, uiPort: ports.temporalUi }, 'TEMPORAL_ADDRESS unset: starting Temporal dev server');
      const temporal = await startTemporalDevServer({
        port: ports.temporal!,
        uiPort: ports.temporalUi!,
        dbFile: path.join(config.dataDir, 'temporal.sqlite'),
        journal: config.temporal.embeddedJournal,
        onLog: (line) => logger.debug({ component: 'temporal' }, line.trim()),
      });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      temporalUiUrl = temporal.uiUrl;
    }
    if (servers.length > 0) logger.info({ ...ports, file: path.join(config.dataDir, PORTS_FILE) }, 'Embedded servers listening on the ports of this DATA_DIR');
    const keyring = loadMasterKeyring(config, logger);
    const db = await openDatabase(databaseUrl, { timeouts: config.database });
    stops.push(() => db.destroy());
    return { databaseUrl, temporalAddress: temporalAddress ?? '', temporalUiUrl, db, keyring, close: stopAll };
  } catch (err) {
    // Started servers are not left behind by a start that failed half way.
    await stopAll();
    throw err;
  }
}
