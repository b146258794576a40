import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/observability/temporal-tracing';
import { startTemporalDevServer } from '../src/infra/temporal-dev-server';

/**
 * What the suite's global setups start, once per jest run: the workflow and
 * integration tiers each have a global setup, and jest runs both in this one
 * process, so the second finds what the first started (here) and reuses it.
 * global-teardown.ts stops all of it.
 */
interface Suite {
  stops: Array<() => Promise<void>>;
  databaseUrl?: string;
  temporal?: { address: string; uiUrl?: string };
  workflowBundle?: string;
}

const suite = ((globalThis as { __flowbaseSuite?: Suite }).__flowbaseSuite ??= { stops: [] });

export const suiteStops = () => suite.stops;

/** A PostgreSQL for the run: TEST_DATABASE_URL when set, else an embedded one in a temporary directory. */
export async function ensurePostgres(): Promise<string> {
  if (suite.databaseUrl) return suite.databaseUrl;
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-test-pg-'));
    fs.chmodSync(dir, 0o755);
    const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'data'), port: await freePort(), database: 'flowbase_test', persistent: false });
    url = pg.url;
    suite.stops.push(async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
  }
  return (suite.databaseUrl = url);
}

/** A Temporal server for the run: TEST_TEMPORAL_ADDRESS when set, else a dev server (with its Web UI). */
export async function ensureTemporal(): Promise<{ address: string; uiUrl?: string }> {
  if (suite.temporal) return suite.temporal;
  const given = process.env.TEST_TEMPORAL_ADDRESS;
  if (given) return (suite.temporal = { address: given });
  const uiPort = await freePort();
  const temporal = await startTemporalDevServer({ port: await freePort(), uiPort });
  suite.stops.push(temporal.stop);
  return (suite.temporal = { address: temporal.address, uiUrl: `http://127.0.0.1:${uiPort}` });
}

/**
 * workflows/ bundled once for the run (about 3 s), which every worker of every
 * file loads (TEMPORAL_WORKFLOW_BUNDLE) instead of bundling its own.
 */
export async function ensureWorkflowBundle(): Promise<string> {
  if (suite.workflowBundle) return suite.workflowBundle;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-test-bundle-'));
  const file = path.join(dir, 'workflow-bundle.js');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: new DefaultLogger('WARN'),
  });
  fs.writeFileSync(file, code);
  suite.stops.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return (suite.workflowBundle = file);
}
