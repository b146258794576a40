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
 * Both print records per second and the service's resident memory (peak
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
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { startVendorStubs } from '../test/stubs/vendor-apis';
import { saveResults } from './lib/results';
import { admin, rssBytes, sampleRss, startService } from './lib/service';
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
    LOG_LEVEL: 'warn',
  };
  const service = await startService(env, path.join(dir, 'service.log'), 'all');
  try {
    const org = await admin(env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${service.baseUrl}${p}`, {
        method,
        headers: { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
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
    const sync = await phase(async () => {
      const toggled = await call('POST', '/dashboards/data-feeds/toggle', {
        feedKey: 'twilio:calls',
        connectionId: connection.id,
        connectionName: connection.name,
        enabled: true,
      });
      sourceId = toggled.dataSourceId;
      for (;;) {
        const source = await call('GET', `/dashboards/data-sources/${sourceId}`);
        const status = source.syncConfig?.lastSyncStatus;
        if (status === 'failed') throw new Error(`sync failed: ${source.syncConfig.lastSyncError}`);
        if (status === 'success') break;
        await new Promise((r) => setTimeout(r, 200));
      }
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
    console.log(`  vendor requests during the sync      ${stubs.requests.filter((r) => r.vendor === 'twilio').length}`);
    console.log(`  written to ${saveResults('feeds', { records: RECORDS, cpus: os.cpus().length, baseline, sync })}`);
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
