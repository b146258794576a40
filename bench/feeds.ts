/**
 * `npm run bench:feeds`: a large data feed sync, end to end. The service runs
 * as one process (`src/main.ts all`: API and worker, embedded Temporal) on its
 * own PostgreSQL, with the Twilio API played by the vendor stub
 * (test/stubs/vendor-apis.ts, real paging). It measures:
 *
 *   - baseline: the same number of call records written straight through the
 *     data store API (1,000 per request), the service's own write path;
 *   - sync: `twilio:calls` toggled on over a connection, from the toggle until
 *     the sync reports success (Twilio pages of 50, one activity per page).
 *
 * Then what keeping the table right costs, in vendor requests and seconds
 * per 10,000 records, beside that plain incremental sync: a sync whose
 * look-back re-reads every call unchanged, Twilio's reconciliation by listing
 * (the last 30 days), and HubSpot's by key (every stored deal, 100 a request).
 *
 * The first two print records per second and the service's resident memory (peak
 * above its level before the phase, and the peak of each quarter): a sync
 * pages through the vendor and never holds the window, so its memory stays
 * flat however many records it writes. Calls have no recordings here (each
 * completed call costs one more vendor request; that path is a vendor latency,
 * not ours). Knob: BENCH_RECORDS (20,000). Results: bench-results/feeds-<time>.json.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { startVendorStubs } from '../test/stubs/vendor-apis';
import { saveResults } from './lib/results';
import { admin, apiCaller, rssBytes, sampleRss, startService } from './lib/service';
import { fmt } from './lib/stats';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const MB = 1024 * 1024;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755);
  const stubs = await startVendorStubs();
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), port: await freePort(), database: 'flowbase_bench', persistent: true });
  const env = {
    DATABASE_URL: pg.url,
    DATA_DIR: dir,
    MASTER_KEY: randomBytes(32).toString('base64'),
    PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    HTTP_OUTBOUND_ALLOW: stubs.allowList.join(','),
    TWILIO_API_BASE_URL: stubs.urls.twilio,
    HUBSPOT_API_BASE_URL: stubs.urls.hubspot,
    LOG_LEVEL: 'warn',
  };
  const service = await startService(env, path.join(dir, 'service.log'), 'all');
  try {
    const org = await admin(env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const call = apiCaller(service.baseUrl, org.token);
    // Calls of the last day (the first sync looks back further), without recordings.
    const calls = stubs.twilio.addCalls(RECORDS, { start: new Date(Date.now() - 86_400_000), spacingSeconds: 86_400 / RECORDS / 2, status: 'no-answer' });
    console.log(`Data feed benchmark: ${fmt.int(RECORDS)} Twilio calls, ${os.cpus().length} CPUs, everything on this machine\n`);

    const phase = async (run: () => Promise<void>) => {
      const before = rssBytes(service.pid);
      const rss = sampleRss(service.pid);
      const started = performance.now();
      await run();
      const seconds = (performance.now() - started) / 1000;
      const { peak, quarters } = rss.stop();
      return {
        seconds,
        perSecond: RECORDS / seconds,
        rssBeforeMb: before / MB,
        rssPeakAboveMb: (peak - before) / MB,
        rssQuarterPeaksMb: quarters.map((q) => q / MB),
      };
    };

    const baseline = await phase(async () => {
      for (let i = 0; i < calls.length; i += 1000) {
        const records = calls.slice(i, i + 1000).map((c) => ({ key: c.sid, value: { from: c.from, to: c.to, status: c.status, startTime: c.start_time } }));
        await call('POST', '/data-stores/tables/direct_calls', { records });
      }
    });

    const connection = await call('POST', '/connections', { name: 'twilio_bench', type: 'twilio', config: stubs.twilio.connectionConfig });
    let sourceId = '';
    /** The source's newest sync, once it has ended (more than `known` syncs listed). */
    const syncEnded = async (known: number) => {
      for (;;) {
        const history = await call('GET', `/dashboards/data-sources/${sourceId}/syncs?limit=1`);
        const [latest] = history.data;
        if (history.total > known && latest.status === 'failed') throw new Error(`sync failed: ${latest.error}`);
        if (history.total > known && latest.status === 'success') return latest;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const syncs = async () => (await call('GET', `/dashboards/data-sources/${sourceId}/syncs?limit=1`)).total as number;
    const sync = await phase(async () => {
      const toggled = await call('POST', '/dashboards/data-feeds/toggle', {
        feedKey: 'twilio:calls',
        connectionId: connection.id,
        connectionName: connection.name,
        enabled: true,
      });
      sourceId = toggled.dataSourceId;
      await syncEnded(0);
    });
    const table = (await call('GET', `/dashboards/data-sources/${sourceId}`)).dataStoreTableName;
    const stored = (await call('GET', `/data-stores/tables/${table}?limit=1&count=true`)).total;
    if (stored !== RECORDS) throw new Error(`the sync stored ${stored} records, expected ${RECORDS}`);

    const row = (label: string, f: typeof baseline) =>
      console.log(
        `  ${label.padEnd(34)} ${fmt.int(f.perSecond).padStart(7)} records/s  ${f.seconds.toFixed(1).padStart(6)} s   RSS ${f.rssBeforeMb.toFixed(0)} MB before, peak +${f.rssPeakAboveMb.toFixed(0)} MB, quarter peaks ${f.rssQuarterPeaksMb.map((q) => q.toFixed(0)).join(' / ')} MB`,
      );
    row('baseline: data store API writes', baseline);
    row('twilio:calls sync (pages of 50)', sync);
    console.log(`\n  sync / baseline records per second   ${fmt.ratio(sync.perSecond / baseline.perSecond)}`);

    // What keeping the table right costs, per 10,000 records, beside the plain incremental sync above (every call new).
    const pool = new Pool({ connectionString: pg.url, max: 1 });
    // An idle connection ended by the server's shutdown (after a failure) must not hide that failure.
    pool.on('error', () => undefined);
    const reconciliationDue = (id: string) =>
      pool.query(`UPDATE data_sources SET sync_config = sync_config || '{"lastReconciledAt": "2020-01-01T00:00:00Z"}' WHERE id = $1`, [id]);
    /** A sync's cost (its history row) per 10,000 records of this run. */
    const costOf = (label: string, seconds: number, run: Record<string, any>) => ({
      label,
      seconds,
      vendorRequests: run.vendorRequests as number,
      records: run.records as Record<string, number>,
      per10k: { seconds: (seconds * 10_000) / RECORDS, vendorRequests: (run.vendorRequests * 10_000) / RECORDS },
    });
    const costed = async (label: string, run: () => Promise<Record<string, any>>) => {
      const started = performance.now();
      const done = await run();
      return costOf(label, (performance.now() - started) / 1000, done);
    };
    const incremental = costOf(
      'plain incremental (new calls)',
      sync.seconds,
      (await call('GET', `/dashboards/data-sources/${sourceId}/syncs?limit=1`)).data[0],
    );
    const lookback = await costed('look-back (a day, calls unchanged)', async () => {
      const known = await syncs();
      await call('POST', `/dashboards/data-sources/${sourceId}/sync`, {});
      return syncEnded(known);
    });
    // Without a look-back, the reconciling sync's own window is empty: what it costs is the listing of 30 days.
    const before = await syncs();
    await call('POST', '/dashboards/data-feeds/toggle', {
      feedKey: 'twilio:calls',
      connectionId: connection.id,
      connectionName: connection.name,
      enabled: true,
      lookbackMinutes: 0,
    });
    await syncEnded(before);
    const listing = await costed('reconciliation (listing, 30 days)', async () => {
      await reconciliationDue(sourceId);
      const known = await syncs();
      await call('POST', `/dashboards/data-sources/${sourceId}/sync`, {});
      return syncEnded(known);
    });
    // A keys feed: HubSpot deals, every stored key checked 100 a request.
    stubs.hubspot.addDeals(RECORDS, { start: new Date(Date.now() - 86_400_000), spacingSeconds: 86_400 / RECORDS / 2 });
    const hubspot = await call('POST', '/connections', { name: 'hubspot_bench', type: 'hubspot-oauth', config: stubs.hubspot.connectionConfig });
    const hubspotSource = await call('POST', '/dashboards/data-feeds/toggle', {
      feedKey: 'hubspot:deals',
      connectionId: hubspot.id,
      connectionName: hubspot.name,
      enabled: true,
      lookbackMinutes: 0,
    });
    sourceId = hubspotSource.dataSourceId;
    const hubspotFirst = await costed('hubspot:deals first sync (new deals)', () => syncEnded(0));
    const keys = await costed('reconciliation (keys, HubSpot)', async () => {
      await reconciliationDue(sourceId);
      const known = await syncs();
      await call('POST', `/dashboards/data-sources/${sourceId}/sync`, {});
      return syncEnded(known);
    });
    await pool.end();
    const costs = [incremental, lookback, listing, hubspotFirst, keys];
    console.log(`\n  Cost per 10,000 records (${fmt.int(RECORDS)} of each in this run)`);
    for (const c of costs) {
      const r = c.records;
      console.log(
        `  ${c.label.padEnd(40)} ${fmt.int(c.per10k.vendorRequests).padStart(6)} vendor requests  ${c.per10k.seconds.toFixed(1).padStart(6)} s   (written ${fmt.int(r.created + r.updated)}, unchanged ${fmt.int(r.unchanged)}, deleted ${fmt.int(r.deleted)})`,
      );
    }
    console.log(`  written to ${saveResults('feeds', { records: RECORDS, cpus: os.cpus().length, baseline, sync, costs })}`);
  } finally {
    await service.stop();
    await pg.stop();
    await stubs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
