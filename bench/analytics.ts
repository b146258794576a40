/**
 * `npm run bench:analytics`: analytics queries and CSV export over one data
 * source, each figure beside PostgreSQL doing the same work directly in the
 * same run.
 *
 *   1. N generated records (default 1,000,000) are COPYed straight into
 *      data_store_records, with the table's __meta__ row registered the way
 *      the repository does it (REGISTER_TABLE); then a data source over them
 *      is created through the API, which builds its serving relation.
 *   2. Three typical queries through the API: cold (first call), warm cached
 *      and warm uncached (see `uncached` below), beside the same query
 *      hand-written against the serving relation through a plain pg client;
 *      with the HTTP overhead of trivial requests as a baseline.
 *   3. CSV export of every row (about N rows) through the API, beside
 *      PostgreSQL's COPY of the same rows. The service's resident memory is
 *      sampled throughout the export.
 *
 * Knobs: BENCH_RECORDS (1,000,000), BENCH_RUNS (20, per warm figure), BENCH_HTTP_RUNS (50).
 * Results: bench-results/analytics-<time>.json.
 */
import os from 'node:os';
import { pipeline } from 'node:stream/promises';
import { Client, types } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { LIVE, qualified } from '../src/db/sql';
import { lineCounter } from './lib/csv-counter';
import { exportCsv } from './lib/http-client';
import { saveResults } from './lib/results';
import { CATEGORIES, YEAR_MS } from './lib/sales-data';
import { loadSalesSource } from './lib/sales-source';
import { admin, rssBytes, sampleRss } from './lib/service';
import { startBenchStack } from './lib/stack';
import { fmt, percentile, sequential } from './lib/stats';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const HTTP_RUNS = Number(process.env.BENCH_HTTP_RUNS ?? 50);
const TABLE = 'sales';
/** Generous bounds: nothing here should come near them, but a hung call must not hang the run. */
const QUERY_TIMEOUT_MS = 120_000;
const LONG_TIMEOUT_MS = 30 * 60_000;

const median = (xs: number[]) => percentile(xs, 50);

/** Cube gives date ranges without an offset, meant in the query's time zone (UTC here). */
const asUtc = (t: string) => (/(Z|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t}Z`);
/** Comparable text of a number that may come as a string (numeric) or a number. */
const num = (v: unknown) => Number(v).toFixed(2);

interface QueryCase {
  label: string;
  query: Record<string, unknown>;
  /**
   * The same query made textually different for run i without changing its
   * rows, so the generated SQL (Cube's cache key) is new on every call and
   * Cube runs it against PostgreSQL: the "uncached" figure.
   */
  uncached(i: number): Record<string, unknown>;
  /** The hand-written SQL, given the query as Cube normalised it (for its absolute date range). */
  sql(normalised: any): { text: string; values: unknown[] };
  /** Rows of either answer as comparable strings. */
  apiRows(data: Array<Record<string, unknown>>): string[];
  sqlRows(rows: Array<Record<string, unknown>>): string[];
}

function queryCases(rel: string): QueryCase[] {
  const m = (name: string) => `${rel}.${name}`;
  const table = qualified(rel);
  const category = CATEGORIES[3];
  const daily = {
    measures: [m('count')],
    timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: 'last 30 days' }],
    limit: 10_000,
  };
  const byCity = {
    measures: [m('amount')],
    dimensions: [m('city')],
    filters: [{ member: m('category'), operator: 'equals', values: [category] }],
    order: { [m('city')]: 'asc' },
    limit: 10_000,
  };
  const top = { measures: [m('amount')], dimensions: [m('city')], order: { [m('amount')]: 'desc' }, limit: 10 };
  return [
    {
      label: '(a) Daily count over the last 30 days',
      query: daily,
      // A row limit of 9,999, 9,998, ...: far above the 30 rows, so the answer is the same.
      uncached: (i) => ({ ...daily, limit: 9_999 - i }),
      sql: (q) => {
        const range: string[] | undefined = q?.timeDimensions?.[0]?.dateRange;
        if (!range) throw new Error(`the API answer carries no normalised date range: ${JSON.stringify(q)}`);
        return {
          text: `SELECT date_trunc('day', at AT TIME ZONE 'UTC') d, count(*) FROM ${table}
                 WHERE ${LIVE} AND at >= $1::timestamptz AND at <= $2::timestamptz GROUP BY 1 ORDER BY 1`,
          values: range.map(asUtc),
        };
      },
      apiRows: (data) => data.map((r) => `${String(r[m('at.day')]).slice(0, 10)}=${r[m('count')]}`),
      sqlRows: (rows) => rows.map((r) => `${String(r.d).slice(0, 10)}=${r.count}`),
    },
    {
      label: `(b) Sum of amount by city, category = ${category}`,
      query: byCity,
      uncached: (i) => ({ ...byCity, limit: 9_999 - i }),
      sql: () => ({
        text: `SELECT city, sum(amount) FROM ${table} WHERE ${LIVE} AND category = $1 GROUP BY 1 ORDER BY 1`,
        values: [category],
      }),
      apiRows: (data) => data.map((r) => `${r[m('city')]}=${num(r[m('amount')])}`),
      sqlRows: (rows) => rows.map((r) => `${r.city}=${num(r.sum)}`),
    },
    {
      label: '(c) Top 10 cities by sum of amount',
      query: top,
      // The limit is the point of this query, so an always-true HAVING varies instead: amounts are never negative.
      uncached: (i) => ({ ...top, filters: [{ member: m('amount'), operator: 'gt', values: [String(-1 - i)] }] }),
      sql: () => ({ text: `SELECT city, sum(amount) FROM ${table} WHERE ${LIVE} GROUP BY 1 ORDER BY 2 DESC LIMIT 10`, values: [] }),
      apiRows: (data) => data.map((r) => `${r[m('city')]}=${num(r[m('amount')])}`),
      sqlRows: (rows) => rows.map((r) => `${r.city}=${num(r.sum)}`),
    },
  ];
}

/** What differs between two row lists, briefly. */
function compareRows(api: string[], sql: string[]): string {
  if (api.length === sql.length && api.every((r, i) => r === sql[i])) return `yes (${api.length} rows)`;
  const i = api.findIndex((r, k) => r !== sql[k]);
  return `NO: API ${api.length} rows, SQL ${sql.length}; first difference at row ${i === -1 ? Math.min(api.length, sql.length) : i}: API ${api[i] ?? '-'} / SQL ${sql[i] ?? '-'}`;
}

async function main() {
  const stack = await startBenchStack();
  const { pool, service } = stack;
  const api = stack.api;
  let sql: Client | undefined;
  stack.onCleanup(async () => sql?.end());

  try {
    // The hand-written SQL's client: timestamps come back as PostgreSQL's text, as numerics already do.
    sql = new Client({
      connectionString: stack.databaseUrl,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === 1114 || oid === 1184 ? (v: string) => v : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
      },
    });
    await sql.connect();
    const results: Record<string, unknown> = { records: RECORDS, runs: RUNS, cpus: os.cpus().length };

    const org = await admin(stack.env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const auth = { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' };
    console.log(`Analytics benchmark: ${fmt.int(RECORDS)} records, ${os.cpus().length} CPUs, PostgreSQL on the same machine\n`);

    // 1. Load: COPY straight into data_store_records, then the data source over it (bench/lib/sales-source).
    const source = await loadSalesSource(stack, org, TABLE, RECORDS);
    const { rel, sourceId } = source;
    results.load = { copyMs: source.copyMs, serviceBuildMs: source.serviceBuildMs, servingRows: source.servingRows };

    // HTTP overhead: /healthz (one SELECT 1 plus a Temporal ping) and a trivial authenticated GET (auth plus one primary-key read).
    const get = async (p: string, headers: Record<string, string>) => {
      const res = await fetch(api(p), { headers, signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status}`);
    };
    await sequential(10, () => get('/healthz', {}));
    const health = await sequential(HTTP_RUNS, () => get('/healthz', {}));
    await sequential(10, () => get(`/dashboards/data-sources/${sourceId}`, auth));
    const trivial = await sequential(HTTP_RUNS, () => get(`/dashboards/data-sources/${sourceId}`, auth));
    const overhead = median(trivial);
    results.httpOverhead = { healthzP50: median(health), authenticatedGetP50: overhead };
    console.log(`HTTP overhead, median of ${HTTP_RUNS} calls one at a time`);
    console.log(`  GET /healthz              ${fmt.ms(median(health))}  (SELECT 1 and a Temporal ping)`);
    console.log(`  GET /dashboards/data-sources/:id  ${fmt.ms(overhead)}  (authenticated; the overhead used below)\n`);

    // 2. Queries. "cached": the identical query again within the same second, which Cube answers from its
    // 1-second result cache (a call that crosses a second boundary may miss it). "uncached": each call differs
    // trivially (see QueryCase.uncached), so its SQL is new to Cube and runs in PostgreSQL every time; that is
    // the figure compared with the hand-written SQL. Uncached API calls and SQL runs alternate, so drift hits both.
    const query = async (q: Record<string, unknown>) => {
      const res = await fetch(api('/dashboards/analytics/query'), {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ query: q }),
        signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`query: ${res.status} ${text.slice(0, 2000)}`);
      return JSON.parse(text) as { data: Array<Record<string, unknown>>; query: Record<string, unknown> };
    };
    const queryFigures: Record<string, unknown>[] = [];
    console.log(`Queries on the ${fmt.int(RECORDS)}-record source, one caller at a time; warm figures are medians of ${RUNS} calls`);
    for (const [index, c] of queryCases(rel).entries()) {
      let t = performance.now();
      const first = await query(c.query);
      const coldMs = performance.now() - t;
      const cached = await sequential(RUNS, () => query(c.query).then(() => undefined));
      const statement = c.sql(first.query);
      const sqlOnce = await sql.query(statement.text, statement.values);
      const uncached: number[] = [];
      const direct: number[] = [];
      let uncachedSame = true;
      for (let i = 0; i < RUNS; i++) {
        t = performance.now();
        const answer = await query(c.uncached(i));
        uncached.push(performance.now() - t);
        uncachedSame &&= answer.data.length === first.data.length;
        t = performance.now();
        await sql.query(statement.text, statement.values);
        direct.push(performance.now() - t);
      }
      const figures = {
        label: c.label,
        rows: first.data.length,
        coldMs,
        cachedP50: median(cached),
        uncachedP50: median(uncached),
        sqlP50: median(direct),
        ratio: median(uncached) / median(direct),
        aimMs: 1.5 * median(direct) + overhead,
        match: compareRows(c.apiRows(first.data), c.sqlRows(sqlOnce.rows)),
        uncachedSameRowCount: uncachedSame,
      };
      queryFigures.push(figures);
      const met = figures.uncachedP50 <= figures.aimMs;
      console.log(`${c.label}`);
      console.log(`  API cold        ${fmt.ms(coldMs).padStart(10)}  (first call${index === 0 ? ", which also compiles the organization's Cube model" : ''})`);
      console.log(`  API cached      ${fmt.ms(figures.cachedP50).padStart(10)}  (identical calls: Cube's 1-second result cache)`);
      console.log(`  API uncached    ${fmt.ms(figures.uncachedP50).padStart(10)}  (each call differs trivially: Cube runs the SQL)`);
      console.log(`  SQL baseline    ${fmt.ms(figures.sqlP50).padStart(10)}  (hand-written, plain pg client)`);
      console.log(
        `  uncached / SQL  ${fmt.ratio(figures.ratio).padStart(10)}  (aim: uncached ≤ 1.5 × SQL + HTTP overhead = ${fmt.ms(figures.aimMs)}: ${met ? 'met' : 'NOT met'})`,
      );
      console.log(`  same rows       ${figures.match}${uncachedSame ? '' : '; WARNING: some uncached calls returned another row count'}\n`);
    }
    results.queries = queryFigures;

    // 3. CSV export of every row as it is stored: an ungrouped query (one row per record, no GROUP BY) without
    // an order, which is what "export all rows" means and what the plain COPY baseline reads.
    const exportQuery = {
      measures: [`${rel}.amount`],
      dimensions: [`${rel}.city`, `${rel}.category`, `${rel}.at`],
      ungrouped: true,
      order: {},
    };
    const expectedRows = RECORDS <= YEAR_MS / 1000 ? RECORDS : undefined;
    const rssBefore = rssBytes(service.pid);
    const sampler = sampleRss(service.pid);
    const t = performance.now();
    const exported = await exportCsv(api('/dashboards/analytics/export-csv'), org.token, { query: exportQuery, title: 'bench' }, LONG_TIMEOUT_MS);
    const exportMs = performance.now() - t;
    const { peak: rssPeak, quarters } = sampler.stop();
    const exportRows = Math.max(0, exported.lines - 1); // the header line

    const copyOut = async (select: string) => {
      const client = await pool.connect();
      const { sink, counts } = lineCounter();
      const started = performance.now();
      try {
        await pipeline(client.query(copyTo(`COPY (${select}) TO STDOUT WITH (FORMAT csv, HEADER)`)), sink);
        client.release();
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      return { ms: performance.now() - started, rows: Math.max(0, counts.lines - 1), bytes: counts.bytes };
    };
    const table = qualified(rel);
    const plain = await copyOut(`SELECT city, category, date_trunc('second', at AT TIME ZONE 'UTC') AS at_second, amount FROM ${table} WHERE ${LIVE}`);
    const grouped = await copyOut(
      `SELECT city, category, date_trunc('second', at AT TIME ZONE 'UTC') AS at_second, sum(amount) AS amount FROM ${table} WHERE ${LIVE} GROUP BY 1, 2, 3 ORDER BY 3`,
    );
    const perSecond = (rows: number, ms: number) => (rows / ms) * 1000;
    const apiRate = perSecond(exportRows, exportMs);
    const plainRate = perSecond(plain.rows, plain.ms);
    const groupedRate = perSecond(grouped.rows, grouped.ms);
    results.export = {
      rows: exportRows,
      expectedRows,
      bytes: exported.bytes,
      contentType: exported.contentType,
      apiMs: exportMs,
      apiRowsPerSecond: apiRate,
      copyRows: plain.rows,
      copyMs: plain.ms,
      copyRowsPerSecond: plainRate,
      groupedCopyRows: grouped.rows,
      groupedCopyMs: grouped.ms,
      groupedCopyRowsPerSecond: groupedRate,
      ratio: apiRate / plainRate,
      ratioToGrouped: apiRate / groupedRate,
      serviceRssBefore: rssBefore,
      serviceRssPeak: rssPeak,
      serviceRssPeakByQuarter: quarters,
    };
    console.log('CSV export of every row (ungrouped: city, category, at, amount)');
    console.log(`  API export      ${fmt.int(apiRate).padStart(9)} rows/s  (${fmt.s(exportMs)}, ${fmt.int(exportRows)} rows, ${fmt.mb(exported.bytes)})`);
    console.log(
      `  COPY baseline   ${fmt.int(plainRate).padStart(9)} rows/s  (${fmt.s(plain.ms)}, ${fmt.int(plain.rows)} rows: plain SELECT of the serving relation)`,
    );
    console.log(
      `  COPY, grouped   ${fmt.int(groupedRate).padStart(9)} rows/s  (${fmt.s(grouped.ms)}, ${fmt.int(grouped.rows)} rows: the same rows grouped by city, category and second, for reference)`,
    );
    console.log(
      `  API / COPY      ${fmt.ratio(apiRate / plainRate).padStart(9)}          (aim: at least 0.50; against the grouped COPY ${fmt.ratio(apiRate / groupedRate)})`,
    );
    console.log(`  service memory  ${fmt.mb(rssBefore)} before, ${fmt.mb(rssPeak)} peak during the export (+${fmt.mb(rssPeak - rssBefore)})`);
    console.log(`  peak by quarter ${quarters.map(fmt.mb).join(', ')}  (flat: the last quarter holds no more than the first)`);
    if (expectedRows !== undefined && exportRows !== expectedRows) {
      console.log(
        `  WARNING: the export has ${fmt.int(exportRows)} rows; the data holds ${fmt.int(expectedRows)} (the COPY baselines found ${fmt.int(plain.rows)} and ${fmt.int(grouped.rows)})`,
      );
    }

    const out = saveResults('analytics', results);
    console.log(`\nFigures saved to ${out}`);
  } finally {
    await stack.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
