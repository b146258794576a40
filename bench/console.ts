/**
 * `npm run bench:console`: what a person waits for in the web console (issue 26).
 *
 *   1. Download. The JavaScript (and CSS) a first visit fetches, gzipped as a
 *      compressing proxy would send it: the sign-in page, then the first page
 *      after sign-in (runs), then what opening a dashboard adds (its chunk and
 *      ECharts). Measured in Chromium from the responses it received.
 *   2. Dashboard drawing. N sales records (default 1,000,000, bench/lib/sales-source)
 *      and a dashboard of 8 widgets over them (lines, area, bars, pie, stat
 *      cards, table). Timed in Chromium: navigation to every tile drawn
 *      (a tile's `data-widget-state` says stat or table, or chart with its
 *      ECharts `finished` event heard: `.echart[data-drawn=true]`), and, in the same
 *      navigation, the duration of the page's own data call (resource
 *      timing); the difference is what loading and drawing add. Beside it,
 *      the baseline: the same batch data call (POST /dashboards/{id}/data)
 *      made by this process over HTTP, alternating with the page loads. Every
 *      call starts 1.1 s after the last, so Cube's 1-second result cache
 *      answers none of them: each runs its queries in PostgreSQL.
 *   3. The report: POST /dashboards/{id}/report.pdf for the same dashboard,
 *      server-side charts through the PDF renderer, beside the data call
 *      measured above (the report's own data part).
 *   4. The workflow graph (issue 39): a definition of about 200 steps with
 *      branches and loops, opened as a graph (navigation to its first nodes
 *      drawn) beside the JSON editor opening it (navigation to its text
 *      shown), alternating; and the JavaScript the graph adds, gzipped.
 *   5. The query builder (issue 40): a bar widget of the dashboard above opened
 *      in the builder; each run ticks or unticks a measure and times, in
 *      Chromium, the change to the preview drawn again (the preview's
 *      `data-state` ready and its chart's ECharts `finished` heard), which
 *      includes the builder's debounce; beside it, the same query through
 *      POST /dashboards/analytics/query made by this process, alternating,
 *      past Cube's result cache like the rest.
 *
 * Knobs: BENCH_RECORDS (1,000,000), BENCH_RUNS (10 of each), CHROMIUM_PATH.
 * Results: bench-results/console-<time>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath } from '../test/browser/chromium-path';
import { requestJson } from './lib/http-client';
import { saveResults } from './lib/results';
import { loadSalesSource } from './lib/sales-source';
import { admin } from './lib/service';
import { startBenchStack, type BenchStack } from './lib/stack';
import { fmt, percentile } from './lib/stats';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TABLE = 'sales';
const ZONE = 'Europe/Paris';
const PAST_CACHE_MS = 1100;
const CALL_TIMEOUT_MS = 300_000;
/** The aims: a first visit under 300 KB of gzipped JavaScript; drawing adds under 300 ms to the data call. */
const AIM_FIRST_VISIT_BYTES = 300 * 1024;
const AIM_DRAW_MS = 300;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => percentile(xs, 50);
const p95 = (xs: number[]) => percentile(xs, 95);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function widgetSpecs(rel: string) {
  const m = (field: string) => `${rel}.${field}`;
  return [
    {
      title: 'Orders per day, last 90 days',
      chartType: 'line',
      queryConfig: { measures: [m('count')], timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: 'last 90 days' }] },
    },
    {
      title: 'Revenue per week by category',
      chartType: 'area',
      queryConfig: {
        measures: [m('amount')],
        dimensions: [m('category')],
        timeDimensions: [{ dimension: m('at'), granularity: 'week', dateRange: 'last 6 months' }],
      },
    },
    {
      title: 'Revenue by city',
      chartType: 'bar',
      queryConfig: { measures: [m('amount')], dimensions: [m('city')], order: { [m('amount')]: 'desc' }, limit: 20 },
    },
    { title: 'Orders by category', chartType: 'bar', queryConfig: { measures: [m('count')], dimensions: [m('category')] } },
    { title: 'Revenue share by category', chartType: 'pie', queryConfig: { measures: [m('amount')], dimensions: [m('category')] } },
    { title: 'Revenue', chartType: 'stat-card', queryConfig: { measures: [m('amount')] } },
    { title: 'Orders', chartType: 'stat-card', queryConfig: { measures: [m('count')] } },
    {
      title: 'Top cities',
      chartType: 'table',
      queryConfig: { measures: [m('amount'), m('count')], dimensions: [m('city')], order: { [m('amount')]: 'desc' }, limit: 50 },
    },
  ];
}

/** Gzipped bytes of every script and stylesheet the page receives while `during` runs, by URL. */
async function downloads(page: Page, during: () => Promise<void>): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const listener = (response: import('playwright-core').Response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    pending.push(
      response.body().then(
        (body) => void seen.set(new URL(response.url()).pathname, gzipSync(body, { level: 6 }).length),
        (error: Error) => console.error(`  (could not read ${response.url()}: ${error.message})`),
      ),
    );
  };
  // Playwright's 'networkidle' is a state of the last navigation, reached once: after a sign-in it is already
  // true while the page's lazy chunks load. So: wait until nothing has been in flight for half a second.
  let inFlight = 0;
  let lastChange = Date.now();
  const started = () => void ((inFlight += 1), (lastChange = Date.now()));
  const ended = () => void ((inFlight -= 1), (lastChange = Date.now()));
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  page.on('response', listener);
  await during();
  while (inFlight > 0 || Date.now() - lastChange < 500) await sleep(50);
  await Promise.all(pending);
  page.off('response', listener);
  page.off('request', started);
  page.off('requestfinished', ended);
  page.off('requestfailed', ended);
  return seen;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const scripts = (m: Map<string, number>) => total(new Map([...m].filter(([p]) => p.endsWith('.js'))));

async function signIn(page: Page, token: string) {
  await page.getByRole('textbox', { name: 'Access token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** One timed dashboard load: navigation to every tile drawn, and the page's own data call within it. */
async function loadDashboard(page: Page, id: string, widgets: number): Promise<{ totalMs: number; dataCallMs: number }> {
  await page.goto('about:blank');
  const started = Date.now();
  await page.goto(`/console/dashboards/${id}`);
  // Anonymous functions only inside: tsx names named ones with a helper the page does not have (and the CSP refuses strings).
  await page.waitForFunction(
    (n) => {
      const tiles = [...(globalThis as any).document.querySelectorAll('[data-widget-state]')] as any[];
      return (
        tiles.length === n &&
        tiles.every(
          (t) =>
            t.dataset.widgetState === 'stat' ||
            t.dataset.widgetState === 'table' ||
            (t.dataset.widgetState === 'chart' && t.querySelector('.echart')?.dataset.drawn === 'true'),
        )
      );
    },
    widgets,
    { timeout: CALL_TIMEOUT_MS, polling: 'raf' },
  );
  const totalMs = Date.now() - started;
  if (process.env.BENCH_TRACE) {
    const trace = await page.evaluate(() => {
      const perf = (globalThis as any).performance;
      const nav = perf.getEntriesByType('navigation')[0];
      const rows = [`document responseEnd ${nav.responseEnd.toFixed(0)} domInteractive ${nav.domInteractive.toFixed(0)}`];
      for (const e of perf.getEntriesByType('resource')) rows.push(`${e.startTime.toFixed(0)} → ${e.responseEnd.toFixed(0)}  ${new URL(e.name).pathname}`);
      rows.push(`drawn seen at ${perf.now().toFixed(0)}`);
      return rows;
    });
    console.log(trace.join('\n'));
  }
  const dataCallMs = await page.evaluate(() => {
    const entries = (globalThis as any).performance.getEntriesByType('resource') as Array<{ name: string; duration: number }>;
    const call = entries.filter((e) => /\/dashboards\/[^/]+\/data$/.test(new URL(e.name).pathname)).pop();
    if (!call) throw new Error('the page made no /dashboards/{id}/data call');
    return call.duration;
  });
  return { totalMs, dataCallMs };
}

/** The aims for the graph: drawn under 1 s, and under twice the JSON editor's time. */
const AIM_GRAPH_MS = 1000;
const AIM_GRAPH_RATIO = 2;

/** About 200 steps: groups of a set, a core.if with a step in each branch, and a loop with one body step. */
function largeDefinition() {
  const set = (stepId: string) => ({ stepId, stepType: 'core.set', input: { values: { v: `{{ initial.n }} ${stepId}` } } });
  const steps = Array.from({ length: 33 }, (_, i) => [
    set(`a${i}`),
    { stepId: `b${i}`, stepType: 'core.if', input: { condition: `initial.n > ${i}`, then: [set(`c${i}`)], else: [set(`d${i}`)] } },
    { stepId: `e${i}`, stepType: 'core.loop', input: { items: '{{ initial.items }}', steps: [set(`f${i}`)] } },
  ]).flat();
  return { name: 'bench-large-workflow', initial: { n: 1, items: [1, 2] }, steps: [...steps, set('last1'), set('last2')] };
}

const countSteps = (steps: unknown[]): number =>
  steps.reduce<number>((n, s) => {
    const input = (s as { input: Record<string, unknown> }).input;
    return n + 1 + ['then', 'else', 'steps'].reduce((m, k) => m + (Array.isArray(input[k]) ? countSteps(input[k] as unknown[]) : 0), 0);
  }, 0);

/** One timed open of a workflow's definition: navigation to the JSON editor's text shown, or to the graph's first nodes drawn. */
async function openDefinition(page: Page, id: string, view: 'json' | 'graph'): Promise<number> {
  await page.goto('about:blank');
  const started = Date.now();
  await page.goto(`/console/workflows/${id}${view === 'json' ? '?view=json' : ''}`);
  if (view === 'json') await page.locator('.cm-content').getByText('"stepId": "a0"').waitFor({ timeout: CALL_TIMEOUT_MS });
  else await page.locator('.react-flow__node[data-id="a0"] .graph-step').waitFor({ timeout: CALL_TIMEOUT_MS });
  return Date.now() - started;
}

/** The builder's debounce (console/src/pages/dashboards/query-builder/preview.tsx): part of what a person waits for. */
const BUILDER_DEBOUNCE_MS = 300;

type Call = (method: string, p: string, body: unknown, expected: number) => Promise<any>;

/**
 * Section 5: a bar of revenue by city opened in the builder; each run ticks or unticks "Count", timed in the page
 * from the change event to the preview drawn again, and the same query (the builder's, as it sends it) timed from
 * this process. The page's own query call is read from resource timing.
 */
async function builderPreview(page: Page, call: Call, dashboardId: string, source: { sourceId: string; rel: string }) {
  const m = (field: string) => `${source.rel}.${field}`;
  const widget = await call(
    'POST',
    `/dashboards/${dashboardId}/widgets`,
    {
      title: 'Revenue by city (builder)',
      chartType: 'bar',
      dataSourceId: source.sourceId,
      queryConfig: { measures: [m('amount')], dimensions: [m('city')], order: { [m('amount')]: 'desc' }, limit: 20 },
    },
    201,
  );
  const drawn = () =>
    page.waitForFunction(
      () => {
        const preview = (globalThis as any).document.querySelector('.qb-preview');
        return preview?.dataset.state === 'ready' && preview.querySelector('.echart')?.dataset.drawn === 'true';
      },
      undefined,
      { timeout: CALL_TIMEOUT_MS, polling: 'raf' },
    );
  await page.goto(`/console/dashboards/${dashboardId}/widgets/${widget.id}/edit`);
  await drawn();
  const count = page.getByRole('group', { name: 'Measures' }).getByLabel('Count', { exact: true });
  const apiMs: number[] = [];
  const previewMs: number[] = [];
  const pageCallMs: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const withCount = i % 2 === 0;
    // The query as the builder sends it (query-state.ts toQueryConfig, with the dashboard's zone).
    const query = {
      measures: withCount ? [m('amount'), m('count')] : [m('amount')],
      dimensions: [m('city')],
      order: [[m('amount'), 'desc']],
      limit: 20,
      timezone: ZONE,
    };
    await sleep(PAST_CACHE_MS);
    const t0 = performance.now();
    await call('POST', '/dashboards/analytics/query', { query }, 201);
    apiMs.push(performance.now() - t0);
    await sleep(PAST_CACHE_MS);
    await count.scrollIntoViewIfNeeded();
    await page.evaluate(() => {
      const w = globalThis as any;
      w.performance.clearResourceTimings();
      w.document.addEventListener('change', () => (w.__builderChangedAt = w.performance.now()), { once: true, capture: true });
    });
    await count.setChecked(withCount);
    await drawn();
    const timing = await page.evaluate(() => {
      const w = globalThis as any;
      const calls = (w.performance.getEntriesByType('resource') as Array<{ name: string; duration: number }>).filter((e) =>
        new URL(e.name).pathname.endsWith('/dashboards/analytics/query'),
      );
      return { ms: w.performance.now() - w.__builderChangedAt, callMs: calls.pop()?.duration ?? NaN };
    });
    previewMs.push(timing.ms);
    pageCallMs.push(timing.callMs);
  }
  const row = (label: string, xs: number[]) => `  ${label.padEnd(62)} p50 ${fmt.ms(p50(xs)).padStart(10)}   p95 ${fmt.ms(p95(xs)).padStart(10)}`;
  console.log(`\nQuery builder preview (a bar of revenue by the top 20 cities over ${fmt.int(RECORDS)} records), ${RUNS} changes`);
  console.log(row('baseline: POST /dashboards/analytics/query from this process', apiMs));
  console.log(row('console: a measure ticked to the preview drawn again', previewMs));
  console.log(row("  of which the page's own query call", pageCallMs));
  console.log(
    `  the preview adds ${fmt.ms(p50(previewMs) - p50(apiMs))} at p50 to the API's time, of which ${BUILDER_DEBOUNCE_MS} ms is the builder's debounce`,
  );
  return { apiMs, previewMs, pageCallMs, debounceMs: BUILDER_DEBOUNCE_MS };
}

async function main() {
  const results: Record<string, unknown> = { records: RECORDS, runs: RUNS, cpus: os.cpus().length };
  let stack: BenchStack | undefined;
  let context: BrowserContext | undefined;
  try {
    stack = await startBenchStack();
    const s = stack;
    if (!fs.existsSync(path.resolve('console/dist/index.html'))) throw new Error('console/dist is missing: npm run bench:console builds it (scripts/run.mjs)');
    const org = await admin(s.env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const call = async (method: string, p: string, body: unknown, expected: number) => {
      const res = await requestJson(method, s.api(p), org.token, body, CALL_TIMEOUT_MS);
      if (res.status !== expected) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body).slice(0, 2000)}`);
      return res.body;
    };

    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    s.onCleanup(() => browser.close());
    context = await browser.newContext({ baseURL: s.api(''), viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();

    // 1. Download, on an empty cache.
    const signInPage = await downloads(page, async () => void (await page.goto('/console/')));
    const firstPage = await downloads(page, () => signIn(page, org.token));
    const firstVisit = new Map([...signInPage, ...firstPage]);
    console.log(
      `First visit (sign-in, then runs): ${kb(scripts(firstVisit))} of JavaScript gzipped, ${kb(total(firstVisit))} with CSS (aim: JavaScript under ${kb(AIM_FIRST_VISIT_BYTES)})`,
    );
    for (const [p, bytes] of [...firstVisit].sort((a, b) => b[1] - a[1])) console.log(`  ${kb(bytes).padStart(9)}  ${p}`);
    results.download = { firstVisitScriptBytes: scripts(firstVisit), firstVisitBytes: total(firstVisit), files: Object.fromEntries(firstVisit) };

    // 2. The dashboard.
    const source = await loadSalesSource(s, org, TABLE, RECORDS);
    const dashboard = await call('POST', '/dashboards', { name: 'Sales overview', timezone: ZONE }, 201);
    const specs = widgetSpecs(source.rel);
    for (const spec of specs) await call('POST', `/dashboards/${dashboard.id}/widgets`, { ...spec, dataSourceId: source.sourceId }, 201);
    const dashboardChunks = await downloads(page, () => loadDashboard(page, dashboard.id, specs.length).then(() => undefined));
    const added = new Map([...dashboardChunks].filter(([p]) => !firstVisit.has(p)));
    console.log(`Opening a dashboard adds ${kb(scripts(added))} of JavaScript gzipped (its chunk and the charts), loaded after the first visit`);
    results.download = { ...(results.download as object), dashboardAddsScriptBytes: scripts(added), dashboardFiles: Object.fromEntries(added) };

    const batchMs: number[] = [];
    const pageTotal: number[] = [];
    const pageData: number[] = [];
    const pageAdds: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      await sleep(PAST_CACHE_MS);
      const t0 = performance.now();
      const body = await call('POST', `/dashboards/${dashboard.id}/data`, {}, 201);
      batchMs.push(performance.now() - t0);
      const failed = (body.widgets as Array<{ error?: unknown }>).filter((w) => w.error);
      if (failed.length > 0) throw new Error(`widgets failed: ${JSON.stringify(failed).slice(0, 1000)}`);
      await sleep(PAST_CACHE_MS);
      const load = await loadDashboard(page, dashboard.id, specs.length);
      pageTotal.push(load.totalMs);
      pageData.push(load.dataCallMs);
      pageAdds.push(load.totalMs - load.dataCallMs);
    }
    const row = (label: string, xs: number[]) => `  ${label.padEnd(62)} p50 ${fmt.ms(p50(xs)).padStart(10)}   p95 ${fmt.ms(p95(xs)).padStart(10)}`;
    console.log(`\nDashboard of ${specs.length} widgets over ${fmt.int(RECORDS)} records, ${RUNS} runs each (Cube's result cache never answers)`);
    console.log(row('baseline: POST /dashboards/{id}/data from this process', batchMs));
    console.log(row('console: navigation to every widget drawn', pageTotal));
    console.log(row("  of which the page's own data call", pageData));
    console.log(row('  loading and drawing (the rest)', pageAdds));
    console.log(`  drawing adds ${fmt.ms(p50(pageAdds))} at p50 to the data call (aim: under ${AIM_DRAW_MS} ms)`);
    results.dashboard = { widgets: specs.length, batchMs, pageTotalMs: pageTotal, pageDataCallMs: pageData, pageAddsMs: pageAdds };

    // 3. The report PDF.
    const reportMs: number[] = [];
    let reportBytes = 0;
    let lastReport: Buffer | undefined;
    for (let i = 0; i < RUNS; i += 1) {
      await sleep(PAST_CACHE_MS);
      const t0 = performance.now();
      const res = await fetch(s.api(`/dashboards/${dashboard.id}/report.pdf`), {
        method: 'POST',
        headers: { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ timezone: ZONE }),
      });
      const pdf = Buffer.from(await res.arrayBuffer());
      reportMs.push(performance.now() - t0);
      if (res.status !== 200 || !pdf.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new Error(`report: ${res.status} ${pdf.toString('utf8', 0, 500)}`);
      reportBytes = pdf.length;
      lastReport = pdf;
    }
    console.log(`\nReport PDF of the same dashboard (${kb(reportBytes)}), ${RUNS} runs`);
    console.log(row('POST /dashboards/{id}/report.pdf (data, charts, PDF)', reportMs));
    console.log(row('beside: its data part alone, POST /dashboards/{id}/data', batchMs));
    console.log(`  charts and PDF add ${fmt.ms(p50(reportMs) - p50(batchMs))} at p50`);
    results.report = { reportMs, reportBytes };
    fs.mkdirSync('bench-results', { recursive: true });
    fs.writeFileSync(path.join('bench-results', 'console-report.pdf'), lastReport!);
    console.log('  the last one is bench-results/console-report.pdf (pdftoppm turns it into PNGs)');

    // 4. A 200-step workflow (branches and loops) opened as a graph, beside the JSON editor opening it.
    const definition = largeDefinition();
    const workflow = await call('POST', '/workflows', definition, 201);
    const jsonView = await downloads(page, () => openDefinition(page, workflow.id, 'json').then(() => undefined));
    const graphView = await downloads(page, () => openDefinition(page, workflow.id, 'graph').then(() => undefined));
    const graphAdds = new Map([...graphView].filter(([p]) => !firstVisit.has(p) && !jsonView.has(p)));
    const graphMs: number[] = [];
    const jsonMs: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      jsonMs.push(await openDefinition(page, workflow.id, 'json'));
      graphMs.push(await openDefinition(page, workflow.id, 'graph'));
    }
    const steps = countSteps(definition.steps);
    console.log(`\nA workflow of ${steps} steps (${definition.steps.length} at the top, branches and loops), ${RUNS} opens of each view`);
    console.log(row('baseline: the JSON editor, navigation to its text shown', jsonMs));
    console.log(row('the graph, navigation to its first nodes drawn', graphMs));
    console.log(
      `  the graph takes ${fmt.ms(p50(graphMs))} at p50, ${(p50(graphMs) / p50(jsonMs)).toFixed(2)}× the JSON editor (aims: under ${fmt.ms(AIM_GRAPH_MS)}, under ${AIM_GRAPH_RATIO}×)`,
    );
    console.log(`  the graph adds ${kb(scripts(graphAdds))} of JavaScript gzipped (xyflow, dagre, the graph editor), loaded when a definition opens`);
    for (const [p, bytes] of [...graphAdds].sort((a, b) => b[1] - a[1])) console.log(`  ${kb(bytes).padStart(9)}  ${p}`);
    results.workflowGraph = { steps, graphMs, jsonMs, graphAddsScriptBytes: scripts(graphAdds), graphFiles: Object.fromEntries(graphAdds) };

    // 5. The query builder's live preview, beside the same query through the API.
    results.queryBuilder = await builderPreview(page, call, dashboard.id, source);
    console.log(`\nResults: ${saveResults('console', results)}`);
  } finally {
    await context?.close().catch(() => undefined);
    await stack?.cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
