/**
 * `npm run bench:datastore`: data store speed and memory, each figure beside
 * PostgreSQL doing the same work directly in the same run.
 *
 *   1. Bulk load of N generated records (default 1,000,000): the API's CSV
 *      import, streamed over HTTP, against COPY of the same rows into the same
 *      table. The service's resident memory is sampled throughout.
 *   2. Single-record upserts per second at fixed concurrency: the API against
 *      the same statement sent straight to PostgreSQL.
 *   3. p50/p99 of a key-prefix read on the N-record table: the API against the
 *      same query sent straight to PostgreSQL.
 *
 * Knobs: BENCH_RECORDS, BENCH_CONCURRENCY (16), BENCH_SECONDS (10), BENCH_READS (1000),
 * BENCH_UPSERT_CLIENT (http, or fetch).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { keyRange } from '../src/data-stores/key-range';
import { newId, newSuid } from '../src/ids';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { requestJson } from './lib/http-client';
import { admin, benchServiceEnv, sampleRss, startService, rssBytes } from './lib/service';
import { fmt, lines, percentile, sequential, sustained } from './lib/stats';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const READS = Number(process.env.BENCH_READS ?? 1000);
/**
 * How the upserts reach the API: node:http by default. The load generator
 * shares this machine's CPUs with the service and the database, and fetch
 * costs its caller about 400 µs a request, four times what node:http does
 * (the SQL baseline's pg client costs about 100 µs); `fetch` for the figures
 * measured that way before 2026-11-25.
 */
const UPSERT_CLIENT = process.env.BENCH_UPSERT_CLIENT === 'fetch' ? 'fetch' : 'http';
const KEY_DIGITS = 7;

const STATUSES = ['paid', 'open', 'refunded', 'void'];
const COUNTRIES = ['FR', 'DE', 'US', 'JP', 'BR', 'IN', 'NG'];

/** Record i of the generated data set: the same in every load. */
function record(i: number) {
  const key = `rec:${String(i).padStart(KEY_DIGITS, '0')}`;
  const value = {
    name: `Customer ${i}`,
    amount: ((i * 37) % 100_000) / 100,
    status: STATUSES[i % STATUSES.length],
    country: COUNTRIES[i % COUNTRIES.length],
    day: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
  };
  return { key, value };
}

const csvLine = (i: number) => {
  const { key, value: v } = record(i);
  return `${key},${v.name},${v.amount},${v.status},${v.country},${v.day}\n`;
};

async function postStream(url: string, token: string, contentType: string, body: AsyncIterable<string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    pipeline(Readable.from(body), req).catch(reject);
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directory
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), port: await freePort(), database: 'flowbase_bench', persistent: true });
  const env = await benchServiceEnv(pg.url, dir);
  const service = await startService(env, path.join(dir, 'service.log'));
  const pool = new Pool({ connectionString: pg.url, max: 10 });
  const results: Record<string, unknown> = { records: RECORDS, concurrency: CONCURRENCY, cpus: os.cpus().length };
  try {
    const org = await admin(env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const api = (p: string) => `${service.baseUrl}${p}`;
    const auth = { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' };
    console.log(`Data store benchmark: ${fmt.int(RECORDS)} records, ${os.cpus().length} CPUs, PostgreSQL on the same machine\n`);

    // 1. Bulk load: COPY first (the limit), then drop its rows so the API loads into the same state.
    let t = performance.now();
    const copyClient = await pool.connect();
    const now = new Date().toISOString();
    await pipeline(
      Readable.from(
        lines(RECORDS, '', (i) => {
          const { key, value } = record(i);
          return `${newId()}\t${newSuid()}\t${org.organizationId}\tbench_copy\t${key}\t${JSON.stringify(value)}\t\\N\t${now}\t${now}\t${now}\n`;
        }),
      ),
      copyClient.query(
        copyFrom(
          `COPY data_store_records (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at) FROM STDIN`,
        ),
      ),
    );
    copyClient.release();
    const copyMs = performance.now() - t;
    await pool.query(`DELETE FROM data_store_records WHERE table_name = 'bench_copy'`);
    await pool.query('VACUUM data_store_records');

    const rssBefore = rssBytes(service.pid);
    const sampler = sampleRss(service.pid);
    t = performance.now();
    const imported = await postStream(
      api('/data-stores/tables/bench/import'),
      org.token,
      'text/csv',
      lines(RECORDS, 'key,name,amount,status,country,day\n', csvLine),
    );
    const importMs = performance.now() - t;
    const { peak: rssPeak, quarters } = sampler.stop();
    if (imported.created !== RECORDS) throw new Error(`import created ${imported.created} of ${RECORDS}`);
    results.bulk = {
      apiImportPerSecond: (RECORDS / importMs) * 1000,
      copyPerSecond: (RECORDS / copyMs) * 1000,
      ratio: copyMs / importMs,
      serviceRssBefore: rssBefore,
      serviceRssPeak: rssPeak,
      serviceRssPeakByQuarter: quarters,
    };
    console.log('Bulk load (CSV over HTTP, one transaction)');
    console.log(`  API import      ${fmt.int((RECORDS / importMs) * 1000).padStart(9)} records/s  (${fmt.s(importMs)})`);
    console.log(`  COPY baseline   ${fmt.int((RECORDS / copyMs) * 1000).padStart(9)} records/s  (${fmt.s(copyMs)})`);
    console.log(`  API / COPY      ${fmt.ratio(copyMs / importMs).padStart(9)}            (aim: at least 0.50)`);
    console.log(`  service memory  ${fmt.mb(rssBefore)} before, ${fmt.mb(rssPeak)} peak during the import (+${fmt.mb(rssPeak - rssBefore)})`);
    console.log(`  peak by quarter ${quarters.map(fmt.mb).join(', ')}  (flat: the last quarter holds no more than the first)\n`);

    // 2. Upserts: random keys among 50,000, so both inserts and replacements happen.
    const upsertValue = (i: number) => ({ n: i, status: STATUSES[i % 4], at: Date.now() });
    await fetch(api('/data-stores/tables'), { method: 'POST', headers: auth, body: JSON.stringify({ tableName: 'bench_upsert' }) });
    const viaApi = await sustained(CONCURRENCY, SECONDS, async (i) => {
      const body = { key: `u:${(i * 7919) % 50_000}`, value: upsertValue(i) };
      if (UPSERT_CLIENT === 'fetch') {
        const res = await fetch(api('/data-stores/tables/bench_upsert'), { method: 'POST', headers: auth, body: JSON.stringify(body) });
        if (res.status !== 200 && res.status !== 201) throw new Error(`upsert: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        return;
      }
      const res = await requestJson('POST', api('/data-stores/tables/bench_upsert'), org.token, body, 30_000);
      if (res.status !== 200 && res.status !== 201) throw new Error(`upsert: ${res.status} ${JSON.stringify(res.body)}`);
    });
    const direct = await sustained(CONCURRENCY, SECONDS, async (i) => {
      await pool.query(
        `INSERT INTO data_store_records AS r (id, suid, organization_id, table_name, key, value, record_timestamp, created_at, updated_at)
         VALUES ($1, $2, $3, 'bench_upsert_sql', $4, $5, now(), now(), now())
         ON CONFLICT (organization_id, table_name, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
         RETURNING *`,
        [newId(), newSuid(), org.organizationId, `u:${(i * 7919) % 50_000}`, JSON.stringify(upsertValue(i))],
      );
    });
    results.upserts = {
      client: UPSERT_CLIENT,
      apiPerSecond: viaApi.perSecond,
      sqlPerSecond: direct.perSecond,
      ratio: viaApi.perSecond / direct.perSecond,
      apiP99: percentile(viaApi.latencies, 99),
    };
    console.log(
      `Single-record upserts, ${CONCURRENCY} concurrent callers for ${SECONDS} s (database pool of 10 either way; API called through ${UPSERT_CLIENT})`,
    );
    console.log(
      `  API             ${fmt.int(viaApi.perSecond).padStart(9)} upserts/s  (p50 ${fmt.ms(percentile(viaApi.latencies, 50))}, p99 ${fmt.ms(percentile(viaApi.latencies, 99))})`,
    );
    console.log(
      `  SQL baseline    ${fmt.int(direct.perSecond).padStart(9)} upserts/s  (p50 ${fmt.ms(percentile(direct.latencies, 50))}, p99 ${fmt.ms(percentile(direct.latencies, 99))})`,
    );
    console.log(`  API / SQL       ${fmt.ratio(viaApi.perSecond / direct.perSecond).padStart(9)}            (aim: at least 0.40)\n`);

    // 3. Key-prefix reads on the big table: each prefix matches 100 keys; one caller at a time.
    const prefix = (i: number) => `rec:${String((i * 7919) % (RECORDS / 100)).padStart(KEY_DIGITS - 2, '0')}`;
    const readApi = async (i: number) => {
      const res = await fetch(api(`/data-stores/tables/bench?prefix=${encodeURIComponent(prefix(i))}&limit=100`), { headers: auth });
      const body = (await res.json()) as { data: unknown[] };
      if (body.data.length !== 100) throw new Error(`prefix read returned ${body.data.length}`);
    };
    const readSql = async (i: number) => {
      const range = keyRange(prefix(i));
      await pool.query(
        `SELECT * FROM data_store_records WHERE organization_id = $1 AND table_name = 'bench' AND key <> '__meta__'
         AND (expires_at IS NULL OR expires_at > now()) AND key >= $2 AND key < $3 ORDER BY key LIMIT 101`,
        [org.organizationId, range.from, range.before],
      );
    };
    await sequential(50, readApi);
    await sequential(50, readSql);
    const apiReads = await sequential(READS, readApi);
    const sqlReads = await sequential(READS, readSql);
    results.prefixReads = {
      apiP50: percentile(apiReads, 50),
      apiP99: percentile(apiReads, 99),
      sqlP50: percentile(sqlReads, 50),
      sqlP99: percentile(sqlReads, 99),
    };
    console.log(`Key-prefix read of 100 records on the ${fmt.int(RECORDS)}-record table, ${fmt.int(READS)} reads one at a time`);
    console.log(`  API             p50 ${fmt.ms(percentile(apiReads, 50))}, p99 ${fmt.ms(percentile(apiReads, 99))}`);
    console.log(`  SQL baseline    p50 ${fmt.ms(percentile(sqlReads, 50))}, p99 ${fmt.ms(percentile(sqlReads, 99))}`);

    fs.mkdirSync('bench-results', { recursive: true });
    const out = path.join('bench-results', `datastore-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, JSON.stringify(results, null, 2));
    console.log(`\nFigures saved to ${out}`);
  } finally {
    await pool.end();
    await service.stop();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
