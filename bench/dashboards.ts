/**
 * `npm run bench:dashboards`: a dashboard's data and its PDF export (issue 13),
 * each beside a baseline measured in the same run.
 *
 *   1. Widget data. N sales records (default 1,000,000) are loaded and a data
 *      source built over them exactly as `bench:analytics` does
 *      (bench/lib/sales-source). A dashboard (Europe/Paris, a Category filter
 *      control with a default of 8 of the 10 categories) gets 20 widgets: 20
 *      different queries (lines and areas over days, weeks and months, bars by
 *      city, stat cards, pies, tables with limits; widget filters, relative
 *      date ranges and timeRange). Timed: the all-widgets call
 *      POST /dashboards/{id}/data, beside the same 20 queries sent one after
 *      another through POST /dashboards/analytics/query (with the dashboard's
 *      filter and zone added, as the widget path adds them; the two answers
 *      are compared, query and rows, on every run).
 *        - cold: the call right after the organization's Cube model changed,
 *          so the model is compiled during the call and Cube's result cache
 *          holds nothing for it (the first cold call is the first analytics
 *          call after the source was built; each later one follows a rename
 *          of the source, a change that bumps the model's version without
 *          touching the serving relation). PostgreSQL's buffers are warm: the
 *          relation was just built and vacuumed.
 *        - warm: the model compiled, every result older than Cube's 1-second
 *          refresh key (each call starts 1.1 s after the previous one ended,
 *          so nothing is answered from Cube's result cache: every query runs
 *          in PostgreSQL). The two kinds of call alternate, so drift hits both.
 *      Also: the HTTP overhead of one authenticated call, the CPU used by the
 *      service and PostgreSQL during the warm calls (/proc), and how many
 *      analytics statements ran at once (pg_stat_activity, sampled in one
 *      extra call of each kind).
 *   2. PDF: bench/lib/dashboard-pdf (a 50-widget HTML with 20 SVG charts and
 *      a 2,000-row table rendered 10 times, beside pdfkit writing the same
 *      text), run after the stack above has stopped.
 *
 * Knobs: BENCH_RECORDS (1,000,000), BENCH_RUNS (20 warm calls of each kind),
 * BENCH_COLD_RUNS (3 cold calls of each kind), BENCH_PDF_RUNS (10),
 * BENCH_PARTS (`widgets,pdf`), and ANALYTICS_POOL_SIZE passes to the service.
 * Results: bench-results/dashboards-<time>.json.
 */
import os from 'node:os';
import type { Pool } from 'pg';
import { loadConfig } from '../src/config/config';
import { WIDGETS_AT_ONCE } from '../src/dashboards/widget-data.service';
import { postgresCpuMs, processCpuMs } from './lib/cpu';
import { runPdfBenchmark } from './lib/dashboard-pdf';
import { requestJson } from './lib/http-client';
import { saveResults } from './lib/results';
import { CATEGORIES } from './lib/sales-data';
import { loadSalesSource } from './lib/sales-source';
import { admin } from './lib/service';
import { startBenchStack, type BenchStack } from './lib/stack';
import { fmt, percentile, sequential } from './lib/stats';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 3);
const PDF_RUNS = Number(process.env.BENCH_PDF_RUNS ?? 10);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'widgets,pdf').split(',').map((p) => p.trim()));
const TABLE = 'sales';
const ZONE = 'Europe/Paris';
/** The dashboard's Category filter starts on these: the 8 "core" categories of 10. */
const DEFAULT_CATEGORIES = CATEGORIES.slice(0, 8);
/** Past Cube's 1-second refresh key: a result cached by an earlier call is stale, so the query runs again. */
const PAST_CACHE_MS = 1100;
/** Generous: nothing here should come near it, but a hung call must not hang the run. */
const CALL_TIMEOUT_MS = 300_000;
/** The aim of issue 13: the all-widgets call at most half the sequential time, warm. */
const AIM_RATIO = 0.5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => percentile(xs, 50);
const p95 = (xs: number[]) => percentile(xs, 95);

type Query = Record<string, unknown>;
interface WidgetSpec {
  title: string;
  chartType: 'line' | 'area' | 'bar' | 'pie' | 'stat-card' | 'table';
  queryConfig: Query;
}
interface Answer {
  data: Array<Record<string, unknown>>;
  query: Query;
  unknownMembers?: string[];
}

/**
 * The 20 widgets: what a sales dashboard holds. `rel` is the source's serving
 * relation, the prefix of its members. The City field stands for a region.
 */
function widgetSpecs(rel: string): WidgetSpec[] {
  const m = (field: string) => `${rel}.${field}`;
  const at = (granularity?: string, dateRange?: string) => ({
    dimension: m('at'),
    ...(granularity ? { granularity } : {}),
    ...(dateRange ? { dateRange } : {}),
  });
  const last = (value: string) => ({ type: 'relative', value });
  const eq = (field: string, ...values: string[]) => ({ member: m(field), operator: 'equals', values });
  return [
    {
      title: 'Orders per day, last 30 days',
      chartType: 'line',
      queryConfig: { measures: [m('count')], timeDimensions: [at('day')], timeRange: last('last 30 days') },
    },
    { title: 'Revenue per day, last 90 days', chartType: 'line', queryConfig: { measures: [m('amount')], timeDimensions: [at('day', 'last 90 days')] } },
    {
      title: 'Revenue per week by category, last 6 months',
      chartType: 'area',
      queryConfig: { measures: [m('amount')], dimensions: [m('category')], timeDimensions: [at('week', 'last 6 months')] },
    },
    { title: 'Orders and revenue per month', chartType: 'line', queryConfig: { measures: [m('count'), m('amount')], timeDimensions: [at('month')] } },
    {
      title: 'Revenue per day, City 00 against City 01',
      chartType: 'line',
      queryConfig: {
        measures: [m('amount')],
        dimensions: [m('city')],
        timeDimensions: [at('day')],
        filters: [eq('city', 'City 00', 'City 01')],
        timeRange: last('last 60 days'),
      },
    },
    {
      title: 'Revenue by region',
      chartType: 'bar',
      queryConfig: { measures: [m('amount')], dimensions: [m('city')], order: { [m('amount')]: 'desc' }, limit: 50 },
    },
    {
      title: 'Orders by category, last 7 days',
      chartType: 'bar',
      queryConfig: { measures: [m('count')], dimensions: [m('category')], timeRange: last('last 7 days') },
    },
    { title: 'Revenue per month, last 12 months', chartType: 'bar', queryConfig: { measures: [m('amount')], timeDimensions: [at('month', 'last 12 months')] } },
    {
      title: 'Revenue of category-3 in regions City 1x',
      chartType: 'bar',
      queryConfig: {
        measures: [m('amount')],
        dimensions: [m('city')],
        filters: [{ member: m('city'), operator: 'startsWith', values: ['City 1'] }, eq('category', CATEGORIES[3])],
        order: { [m('city')]: 'asc' },
      },
    },
    { title: 'Total revenue', chartType: 'stat-card', queryConfig: { measures: [m('amount')] } },
    { title: 'Orders, last 7 days', chartType: 'stat-card', queryConfig: { measures: [m('count')], timeRange: last('last 7 days') } },
    { title: 'Revenue this month', chartType: 'stat-card', queryConfig: { measures: [m('amount')], timeDimensions: [at(undefined, 'this month')] } },
    { title: 'Orders yesterday', chartType: 'stat-card', queryConfig: { measures: [m('count')], timeDimensions: [at(undefined, 'yesterday')] } },
    {
      title: 'Revenue of City 00, last 30 days',
      chartType: 'stat-card',
      queryConfig: { measures: [m('amount')], filters: [eq('city', 'City 00')], timeRange: last('last 30 days') },
    },
    { title: 'Orders by category', chartType: 'pie', queryConfig: { measures: [m('count')], dimensions: [m('category')] } },
    {
      title: 'Revenue by category, last 30 days',
      chartType: 'pie',
      queryConfig: { measures: [m('amount')], dimensions: [m('category')], timeRange: last('last 30 days') },
    },
    {
      title: 'Top 10 regions by orders',
      chartType: 'pie',
      queryConfig: { measures: [m('count')], dimensions: [m('city')], order: { [m('count')]: 'desc' }, limit: 10 },
    },
    {
      title: 'Revenue by region and category',
      chartType: 'table',
      queryConfig: { measures: [m('amount'), m('count')], dimensions: [m('city'), m('category')], order: { [m('amount')]: 'desc' }, limit: 100 },
    },
    {
      title: 'Daily revenue by region, last 14 days',
      chartType: 'table',
      queryConfig: {
        measures: [m('amount')],
        dimensions: [m('city')],
        timeDimensions: [at('day')],
        timeRange: last('last 14 days'),
        order: [
          [m('at'), 'desc'],
          [m('amount'), 'desc'],
        ],
        limit: 500,
      },
    },
    {
      title: 'Regions over 2,000,000 in revenue',
      chartType: 'table',
      queryConfig: {
        measures: [m('amount'), m('count')],
        dimensions: [m('city')],
        filters: [{ member: m('amount'), operator: 'gt', values: ['2000000'] }],
        order: { [m('amount')]: 'desc' },
        limit: 20,
      },
    },
  ];
}

/** JSON with object keys sorted: two answers compare equal whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** Samples pg_stat_activity every 20 ms: analytics statements running (Cube's pool) and parallel workers helping them. */
function sampleActivity(pool: Pool) {
  const samples: Array<{ statements: number; workers: number }> = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await pool.query(
        `SELECT count(*) FILTER (WHERE backend_type = 'client backend' AND application_name = 'flowbase-analytics') AS statements,
                count(*) FILTER (WHERE backend_type = 'parallel worker') AS workers
           FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()`,
      );
      samples.push({ statements: Number(rows[0].statements), workers: Number(rows[0].workers) });
      await sleep(20);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const mean = (f: (s: (typeof samples)[number]) => number) => samples.reduce((a, s) => a + f(s), 0) / Math.max(1, samples.length);
      const busy = samples.filter((s) => s.statements > 0);
      return {
        samples: samples.length,
        /** Mean statements running, over the samples where at least one ran. */
        statementsWhileBusy: busy.reduce((a, s) => a + s.statements, 0) / Math.max(1, busy.length),
        maxStatements: Math.max(0, ...samples.map((s) => s.statements)),
        meanWorkers: mean((s) => s.workers),
        maxWorkers: Math.max(0, ...samples.map((s) => s.workers)),
      };
    },
  };
}

interface Timed {
  ms: number;
  /** CPU milliseconds used during the call. */
  serviceCpuMs: number;
  postgresCpuMs: number;
}

async function widgetsPart(results: Record<string, unknown>): Promise<void> {
  let stack: BenchStack | undefined;
  try {
    stack = await startBenchStack();
    const s = stack;
    const poolSize = loadConfig({ ...process.env, ...s.env }).analytics.poolSize;
    const perOrganization = Math.max(1, poolSize - 1);
    const org = await admin(s.env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const call = async (method: string, p: string, body: unknown, expected: number) => {
      const res = await requestJson(method, s.api(p), org.token, body, CALL_TIMEOUT_MS);
      if (res.status !== expected) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body).slice(0, 2000)}`);
      return res.body;
    };
    console.log(
      `Dashboard data: ${fmt.int(RECORDS)} records, ${os.cpus().length} CPUs, PostgreSQL on the same machine; Cube's pool ${poolSize} connections, ` +
        `one organization at most ${perOrganization} at once; the all-widgets call runs ${WIDGETS_AT_ONCE} widgets at a time\n`,
    );

    const source = await loadSalesSource(s, org, TABLE, RECORDS);
    const { rel, sourceId } = source;
    results.load = { copyMs: source.copyMs, serviceBuildMs: source.serviceBuildMs, servingRows: source.servingRows };

    // The dashboard: its zone, a Category filter control with a default, 20 widgets.
    const dashboard = await call('POST', '/dashboards', { name: 'Sales overview', timezone: ZONE }, 201);
    await call(
      'PATCH',
      `/dashboards/${dashboard.id}`,
      {
        filterConfig: [{ id: 'category', dataSourceId: sourceId, dimension: 'category', label: 'Category' }],
        filterDefaults: { category: DEFAULT_CATEGORIES },
      },
      200,
    );
    const specs = widgetSpecs(rel);
    const widgets: Array<WidgetSpec & { id: string }> = [];
    for (const spec of specs)
      widgets.push({ ...spec, id: (await call('POST', `/dashboards/${dashboard.id}/widgets`, { ...spec, dataSourceId: sourceId }, 201)).id });
    // What the widget path runs for each (src/dashboards/widget-query.ts): the saved query, the dashboard's filter added, its zone.
    const dashboardFilter = { member: `${rel}.category`, operator: 'equals', values: DEFAULT_CATEGORIES };
    const asSent = widgets.map((w) => ({ ...w.queryConfig, filters: [...((w.queryConfig.filters as unknown[]) ?? []), dashboardFilter], timezone: ZONE }));
    results.widgets = widgets.map((w, i) => ({ title: w.title, chartType: w.chartType, queryConfig: w.queryConfig, sequentialQuery: asSent[i] }));

    // The two calls. Each checks its answers; the sequential one's are compared with the last batch answer.
    let lastBatch: Answer[] | undefined;
    let mismatches = 0;
    const differences: string[] = [];
    const rowCounts: number[] = [];
    const batch = async () => {
      const body = await call('POST', `/dashboards/${dashboard.id}/data`, {}, 201);
      const failed = (body.widgets as Array<{ widgetId: string; error?: unknown }>).filter((e) => e.error);
      if (failed.length > 0) throw new Error(`widgets failed: ${JSON.stringify(failed).slice(0, 2000)}`);
      if (body.timezone !== ZONE || body.widgets.length !== widgets.length) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 500)}`);
      const answers = body.widgets as Array<Answer & { widgetId: string }>;
      answers.forEach((a, i) => {
        if (a.widgetId !== widgets[i].id) throw new Error(`widget ${i} answered out of order`);
        if (a.unknownMembers) throw new Error(`widget "${widgets[i].title}": unknown members ${a.unknownMembers.join(', ')}`);
      });
      lastBatch = answers;
    };
    const perQuery: number[][] = widgets.map(() => []);
    const oneByOne = async () => {
      for (const [i, q] of asSent.entries()) {
        const t = performance.now();
        const answer: Answer = await call('POST', '/dashboards/analytics/query', { query: q }, 201);
        perQuery[i].push(performance.now() - t);
        rowCounts[i] = answer.data.length;
        if (lastBatch) {
          const b = lastBatch[i];
          if (canonical(b.query) !== canonical(answer.query) || canonical(b.data) !== canonical(answer.data)) {
            mismatches++;
            if (differences.length < 3) differences.push(`"${widgets[i].title}": batch ${canonical(b.query)} / sequential ${canonical(answer.query)}`);
          }
        }
      }
    };
    const timed = async (op: () => Promise<void>): Promise<Timed> => {
      const cpu0 = { service: processCpuMs(s.service.pid), postgres: postgresCpuMs(s.pgDir) };
      const t = performance.now();
      await op();
      const ms = performance.now() - t;
      return { ms, serviceCpuMs: processCpuMs(s.service.pid) - cpu0.service, postgresCpuMs: postgresCpuMs(s.pgDir) - cpu0.postgres };
    };
    // A model change: a rename bumps the source's update time, so the organization's model version, so Cube compiles anew.
    let renames = 0;
    const changeModel = async () => {
      const before = await call('GET', `/dashboards/data-sources/${sourceId}`, undefined, 200);
      const after = await call('PATCH', `/dashboards/data-sources/${sourceId}`, { name: `Sales (${++renames})` }, 200);
      if (after.updatedAt === before.updatedAt) throw new Error('the rename did not change the source: the model would not recompile');
    };

    // HTTP overhead of one authenticated call (the sequential path pays it 20 times, the batch once).
    const get = () => call('GET', `/dashboards/data-sources/${sourceId}`, undefined, 200).then(() => undefined);
    await sequential(10, get);
    const overhead = p50(await sequential(50, get));
    results.httpOverheadP50 = overhead;

    // Cold.
    const cold = { firstBatch: 0, batch: [] as Timed[], sequential: [] as Timed[] };
    await sleep(PAST_CACHE_MS);
    cold.firstBatch = (await timed(batch)).ms;
    for (let k = 0; k < COLD_RUNS; k++) {
      await changeModel();
      await sleep(PAST_CACHE_MS);
      cold.sequential.push(await timed(oneByOne));
      await changeModel();
      await sleep(PAST_CACHE_MS);
      cold.batch.push(await timed(batch));
    }

    // Warm: one unmeasured call of each, then RUNS of each, alternating which goes first.
    await sleep(PAST_CACHE_MS);
    await batch();
    await sleep(PAST_CACHE_MS);
    await oneByOne();
    for (const q of perQuery) q.length = 0;
    const warm = { batch: [] as Timed[], sequential: [] as Timed[] };
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? (['batch', 'sequential'] as const) : (['sequential', 'batch'] as const);
      for (const kind of order) {
        await sleep(PAST_CACHE_MS);
        warm[kind].push(await timed(kind === 'batch' ? batch : oneByOne));
      }
    }

    // One more of each, with pg_stat_activity sampled: how many statements ran at once.
    await sleep(PAST_CACHE_MS);
    let sampler = sampleActivity(s.pool);
    await batch();
    const batchActivity = await sampler.stop();
    await sleep(PAST_CACHE_MS);
    sampler = sampleActivity(s.pool);
    await oneByOne();
    const sequentialActivity = await sampler.stop();

    // Report.
    const ms = (xs: Timed[]) => xs.map((x) => x.ms);
    const ratio = p50(ms(warm.batch)) / p50(ms(warm.sequential));
    const coldRatio = p50(ms(cold.batch)) / p50(ms(cold.sequential));
    const list = (xs: number[]) => xs.map((x) => fmt.ms(x)).join(', ');
    const cores = (xs: Timed[]) => xs.reduce((a, x) => a + x.serviceCpuMs + x.postgresCpuMs, 0) / xs.reduce((a, x) => a + x.ms, 0);
    const cpuLine = (xs: Timed[]) => {
      const service = p50(xs.map((x) => x.serviceCpuMs));
      const postgres = p50(xs.map((x) => x.postgresCpuMs));
      return `CPU a call: PostgreSQL ${fmt.ms(postgres)}, service ${fmt.ms(service)}; ${cores(xs).toFixed(2)} of ${os.cpus().length} cores busy`;
    };
    const perQueryP50 = perQuery.map(p50);
    const sumP50 = perQueryP50.reduce((a, b) => a + b, 0);
    const longest = Math.max(...perQueryP50);
    const bound = Math.max(longest, sumP50 / Math.min(WIDGETS_AT_ONCE, perOrganization));
    const pad = 58;

    console.log(`Dashboard "Sales overview": ${widgets.length} widgets, 20 different queries (zone ${ZONE}, Category filter default: 8 of 10 categories)`);
    console.log(`HTTP overhead: authenticated GET ${fmt.ms(overhead)} (p50 of 50)\n`);
    console.log(
      "Cold: the first call after the organization's Cube model changed (compiled during the call, nothing in Cube's result cache; PostgreSQL's buffers warm)",
    );
    console.log(`  ${'all-widgets call, first after the source was built'.padEnd(pad)} ${fmt.ms(cold.firstBatch).padStart(10)}`);
    console.log(
      `  ${`all-widgets call after a model change (${COLD_RUNS})`.padEnd(pad)} ${fmt.ms(p50(ms(cold.batch))).padStart(10)}  (p50; ${list(ms(cold.batch))})`,
    );
    console.log(
      `  ${`20 queries one after another after a model change (${COLD_RUNS})`.padEnd(pad)} ${fmt.ms(p50(ms(cold.sequential))).padStart(10)}  (p50; ${list(ms(cold.sequential))})`,
    );
    console.log(`  ${'batch / sequential, cold (p50)'.padEnd(pad)} ${fmt.ratio(coldRatio).padStart(10)}\n`);
    console.log(
      `Warm: model compiled, each call 1.1 s after the previous one (past Cube's 1-second result cache: every query runs in PostgreSQL); ${RUNS} calls each`,
    );
    console.log(
      `  ${'all-widgets call  POST /dashboards/{id}/data'.padEnd(pad)} p50 ${fmt.ms(p50(ms(warm.batch))).padStart(10)}   p95 ${fmt.ms(p95(ms(warm.batch))).padStart(10)}`,
    );
    console.log(`  ${''.padEnd(pad)} ${cpuLine(warm.batch)}`);
    console.log(
      `  ${'20 queries one after another  /dashboards/analytics/query'.padEnd(pad)} p50 ${fmt.ms(p50(ms(warm.sequential))).padStart(10)}   p95 ${fmt.ms(p95(ms(warm.sequential))).padStart(10)}`,
    );
    console.log(`  ${''.padEnd(pad)} ${cpuLine(warm.sequential)}`);
    console.log(
      `  ${'batch / sequential, warm (p50)'.padEnd(pad)} ${fmt.ratio(ratio).padStart(10)}   (aim: at most ${AIM_RATIO}×: ${ratio <= AIM_RATIO ? 'met' : 'NOT met'})`,
    );
    console.log(
      `  ${'same queries and rows in both'.padEnd(pad)} ${mismatches === 0 ? `yes (every sequential answer equal to the batch's, ${widgets.length} widgets × ${COLD_RUNS + RUNS + 2} runs)` : `NO: ${mismatches} differ; ${differences.join('; ')}`}\n`,
    );
    console.log(`Where the time goes (warm, sequential path, p50 of each query; rows as answered)`);
    widgets.forEach((w, i) =>
      console.log(
        `  ${String(i + 1).padStart(2)}. ${`${w.title} (${w.chartType})`.padEnd(58)} ${fmt.ms(perQueryP50[i]).padStart(10)}  ${fmt.int(rowCounts[i] ?? 0).padStart(5)} rows`,
      ),
    );
    console.log(`  sum of the 20 ${fmt.ms(sumP50)}, longest ${fmt.ms(longest)}, of which HTTP and auth about ${fmt.ms(overhead)} each`);
    console.log(
      `  perfect overlap at ${Math.min(WIDGETS_AT_ONCE, perOrganization)} at once would take about ${fmt.ms(bound)} (${fmt.ratio(bound / sumP50)} of the sum) if the queries did not slow each other down`,
    );
    console.log(
      `  statements running at once (pg_stat_activity every 20 ms): all-widgets call ${batchActivity.statementsWhileBusy.toFixed(1)} (max ${batchActivity.maxStatements}), ` +
        `sequential ${sequentialActivity.statementsWhileBusy.toFixed(1)} (max ${sequentialActivity.maxStatements}); ` +
        `parallel workers on average ${batchActivity.meanWorkers.toFixed(1)} (max ${batchActivity.maxWorkers}) and ${sequentialActivity.meanWorkers.toFixed(1)} (max ${sequentialActivity.maxWorkers})\n`,
    );

    results.dashboardData = {
      poolSize,
      perOrganization,
      widgetsAtOnce: WIDGETS_AT_ONCE,
      httpOverheadP50: overhead,
      cold: {
        firstBatchMs: cold.firstBatch,
        batch: cold.batch,
        sequential: cold.sequential,
        batchP50: p50(ms(cold.batch)),
        sequentialP50: p50(ms(cold.sequential)),
        ratio: coldRatio,
      },
      warm: {
        batch: warm.batch,
        sequential: warm.sequential,
        batchP50: p50(ms(warm.batch)),
        batchP95: p95(ms(warm.batch)),
        sequentialP50: p50(ms(warm.sequential)),
        sequentialP95: p95(ms(warm.sequential)),
        ratio,
        aim: AIM_RATIO,
        aimMet: ratio <= AIM_RATIO,
        coresBusyBatch: cores(warm.batch),
        coresBusySequential: cores(warm.sequential),
      },
      perQueryP50: widgets.map((w, i) => ({ title: w.title, chartType: w.chartType, p50: perQueryP50[i], rows: rowCounts[i] })),
      overlapBoundMs: bound,
      activity: { batch: batchActivity, sequential: sequentialActivity },
      mismatches,
    };
  } finally {
    await stack?.cleanup();
  }
}

async function main() {
  const results: Record<string, unknown> = { records: RECORDS, runs: RUNS, coldRuns: COLD_RUNS, pdfRuns: PDF_RUNS, cpus: os.cpus().length };
  if (PARTS.has('widgets')) await widgetsPart(results);
  if (PARTS.has('pdf')) results.pdf = await runPdfBenchmark(PDF_RUNS);
  console.log(`\nFigures saved to ${saveResults('dashboards', results)}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
