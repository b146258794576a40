import { inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { as, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { createDashboard, createSalesSource } from './dashboard-fixtures';

/**
 * GET and POST /dashboards/{id}/report.pdf on the real stack: a dashboard over
 * a data store-backed source, printed with fresh data, read back with pdf.js.
 */

let h: Harness;
let org: TestOrg;
let other: TestOrg;
let dashboardId: string;
let brokenTitle: string;
type Json = Record<string, any>;

const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 1200, region: 'EU' },
  k2: { at: '2026-03-11T12:00:00Z', amount: 800, region: 'US' },
  k3: { at: '2026-03-11T13:00:00Z', amount: 34, region: 'EU' },
};

/** The report's bytes, and its text as pdf.js reads it (all pages). */
async function report(method: 'get' | 'post', path: string, body: Json | undefined, token = org.ownerToken) {
  const req = as(h.app, token)[method](path);
  const res = await (body ? req.send(body) : req).buffer(true).parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => done(null, Buffer.concat(chunks)));
  });
  if (res.status !== 200) return { status: res.status, text: '', body: JSON.parse((res.body as Buffer).toString('utf8')), headers: res.headers };
  const pdf = await inspectPdf(res.body as Buffer, { draw: false });
  return { status: res.status, text: pdf.pages.map((p) => p.text).join('\n'), headers: res.headers, pages: pdf.pages };
}

beforeAll(async () => {
  h = await startHarness();
  [org, other] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
  const owner = as(h.app, org.ownerToken);
  const sales = await createSalesSource(h.app, org, SALES, uniqueName('Sales'));
  const doomed = await createSalesSource(h.app, org, SALES, uniqueName('Doomed'));
  const m = (field: string) => `${sales.servingRelation}.${field}`;
  const dashboard = await createDashboard(h.app, org, { name: uniqueName('Weekly sales'), timezone: 'America/New_York' });
  dashboardId = dashboard.id;
  expectStatus(
    await owner.patch(`/dashboards/${dashboardId}`).send({ filterConfig: [{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }] }),
    200,
  );
  const add = async (title: string, chartType: string, queryConfig: Json, source = sales) => {
    const res = await owner.post(`/dashboards/${dashboardId}/widgets`).send({ title, chartType, dataSourceId: source.id, queryConfig });
    expectStatus(res, 201);
    return res.body.id as string;
  };
  const daily = { measures: [m('amount')], timeDimensions: [{ dimension: m('at'), granularity: 'day' }] };
  const ids = [
    await add('Total sales', 'stat-card', { measures: [m('amount')] }),
    await add('Daily sales', 'line', daily),
    await add('By region', 'bar', { measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } }),
    await add('Region share', 'pie', { measures: [m('amount')], dimensions: [m('region')] }),
    await add('Sales table', 'table', { measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } }),
  ];
  brokenTitle = uniqueName('Broken');
  ids.push(await add(brokenTitle, 'stat-card', { measures: [`${doomed.servingRelation}.amount`] }, doomed));
  const layout = [
    { widgetId: ids[0], x: 0, y: 0, w: 3, h: 2 },
    { widgetId: ids[5], x: 3, y: 0, w: 3, h: 2 },
    { widgetId: ids[1], x: 0, y: 2, w: 6, h: 4 },
    { widgetId: ids[2], x: 6, y: 2, w: 6, h: 4 },
    { widgetId: ids[3], x: 0, y: 6, w: 4, h: 4 },
    { widgetId: ids[4], x: 4, y: 6, w: 8, h: 4 },
  ];
  expectStatus(await owner.patch(`/dashboards/${dashboardId}/layout`).send({ layout }), 200);
  // The broken widget's source goes away: its tile shows the error, the others still print.
  expectStatus(await owner.delete(`/dashboards/data-sources/${doomed.id}`), 200);
});
afterAll(() => h.close());

test('the report prints the title, zone, generation time, filters, stat number, table cells, axis labels and a failed widget’s error', async () => {
  const res = await report('get', `/dashboards/${dashboardId}/report.pdf`, undefined);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="Weekly sales_[^"]*\.pdf"/);
  const text = res.text;
  expect(text).toMatch(/Weekly sales_/);
  expect(text).toContain('America/New_York');
  expect(text).toMatch(/Generated: 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00/);
  expect(text).toMatch(/Region: +all/);
  expect(text).toContain('2,034');
  // Table cells, bar categories, and days as New York reads them (k1 is late on the 9th there).
  for (const s of ['Sales table', 'EU', 'US', '1,234', 'Mar 9, 2026', 'Mar 11, 2026']) expect(text).toContain(s);
  expect(text).toContain(brokenTitle);
  expect(text).toMatch(/Error: Widget .* data source/);
});

test('filter values and the zone change what is printed (GET query and POST body)', async () => {
  const eu = await report('get', `/dashboards/${dashboardId}/report.pdf?filter.region=EU&pageSize=A4&landscape=false`, undefined);
  expect(eu.status).toBe(200);
  expect(eu.text).toMatch(/Region: +EU/);
  expect(eu.text).toContain('1,234');
  expect(eu.text).not.toContain('2,034');
  expect(eu.pages![0].width).toBeLessThan(eu.pages![0].height);
  const us = await report('post', `/dashboards/${dashboardId}/report.pdf`, { filters: { region: ['US'] } });
  expect(us.text).toMatch(/Region: +US/);
  expect(us.text).toContain('800');
  expect(us.text).not.toContain('2,034');
  expect(us.pages![0].width).toBeGreaterThan(us.pages![0].height);
});

test('bad input is 400: an unknown filter id, an unknown query parameter, a bad zone', async () => {
  expect((await report('post', `/dashboards/${dashboardId}/report.pdf`, { filters: { nope: ['x'] } })).status).toBe(400);
  expect((await report('get', `/dashboards/${dashboardId}/report.pdf?region=EU`, undefined)).status).toBe(400);
  expect((await report('get', `/dashboards/${dashboardId}/report.pdf?timezone=Mars/Olympus`, undefined)).status).toBe(400);
});

test('another organization gets 404; a viewer may print it', async () => {
  const foreign = await report('get', `/dashboards/${dashboardId}/report.pdf`, undefined, other.ownerToken);
  expect(foreign.status).toBe(404);
  const viewer = await report('post', `/dashboards/${dashboardId}/report.pdf`, {}, org.tokens.viewer);
  expect(viewer.status).toBe(200);
  expect(viewer.text).toContain('2,034');
});
