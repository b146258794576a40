import { inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { createDashboard, createSalesSource } from './dashboard-fixtures';

/**
 * Text tiles (chart type `text`, issue 40): Markdown in displayConfig, no data
 * source and no query. Created and changed through the widget routes (and
 * refused with a source or a query), skipped by the data calls, carried by
 * export and import, printed by the report PDF.
 */

let h: Harness;
let org: TestOrg;
let source: Record<string, any>;
type Json = Record<string, any>;

const owner = () => as(h.app, org.ownerToken);
const MARKDOWN = '## Quarterly notes\n\nFigures are **net of refunds**.\n\n- EU first\n- then US\n\n<script>alert(1)</script> [bad](javascript:alert(1))';

beforeAll(async () => {
  h = await startHarness();
  org = await createTestOrg(h.services);
  source = await createSalesSource(h.app, org, { k1: { at: '2026-03-10T03:30:00Z', amount: 1200, region: 'EU' } });
});
afterAll(() => h.close());

async function dashboardWithText(): Promise<{ dashboard: Json; text: Json; stat: Json }> {
  const dashboard = await createDashboard(h.app, org, { name: uniqueName('Notes') });
  const text = await owner()
    .post(`/dashboards/${dashboard.id}/widgets`)
    .send({ title: 'About', chartType: 'text', displayConfig: { markdown: MARKDOWN } });
  expectStatus(text, 201);
  const stat = await owner()
    .post(`/dashboards/${dashboard.id}/widgets`)
    .send({ title: 'Total', chartType: 'stat-card', dataSourceId: source.id, queryConfig: { measures: [`${source.servingRelation}.amount`] } });
  expectStatus(stat, 201);
  return { dashboard, text: text.body, stat: stat.body };
}

test('a text widget is created without a source or a query, at a full-width default size', async () => {
  const { dashboard, text } = await dashboardWithText();
  expect(text).toEqual(expect.objectContaining({ chartType: 'text', dataSourceId: null, queryConfig: null, displayConfig: { markdown: MARKDOWN } }));
  const read = await owner().get(`/dashboards/${dashboard.id}`);
  expect(read.body.layout[0]).toEqual({ widgetId: text.id, x: 0, y: 0, w: 12, h: 2 });
  expect(read.body.widgets[0]).toEqual(expect.objectContaining({ id: text.id, dataSourceId: null, queryConfig: null }));
});

test('a query or a source on a text widget is refused, and a chart without them is refused, each naming the field', async () => {
  const { dashboard, text, stat } = await dashboardWithText();
  const query = { measures: [`${source.servingRelation}.amount`] };
  const cases: Array<[string, Json, string, RegExp]> = [
    ['a text widget with a query', { title: 'T', chartType: 'text', queryConfig: query }, 'queryConfig', /text widget has no queryConfig/],
    ['a text widget with a source', { title: 'T', chartType: 'text', dataSourceId: source.id }, 'dataSourceId', /text widget has no dataSourceId/],
    ['a bar chart without a source', { title: 'B', chartType: 'bar', queryConfig: query }, 'dataSourceId', /is required for a bar widget/],
    ['a line chart without a query', { title: 'L', chartType: 'line', dataSourceId: source.id }, 'queryConfig', /is required for a line widget/],
  ];
  for (const [what, body, path, message] of cases) {
    const res = await owner().post(`/dashboards/${dashboard.id}/widgets`).send(body);
    expectError(res, 400, 'validation_failed');
    expect({ what, details: res.body.error.details }).toEqual({
      what,
      details: expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]),
    });
  }

  // Changing a text widget: a query is refused; its Markdown changes.
  expectError(await owner().patch(`/dashboards/widgets/${text.id}`).send({ queryConfig: query }), 400, 'validation_failed');
  const edited = await owner()
    .patch(`/dashboards/widgets/${text.id}`)
    .send({ displayConfig: { markdown: '# New heading' } });
  expectStatus(edited, 200);
  expect(edited.body.displayConfig).toEqual({ markdown: '# New heading' });
  // A text widget turned into a chart needs both; a chart turned into text drops both.
  const missing = await owner().patch(`/dashboards/widgets/${text.id}`).send({ chartType: 'bar', dataSourceId: source.id });
  expectError(missing, 400, 'validation_failed');
  expect(missing.body.error.message).toMatch(/queryConfig is required for a bar widget/);
  const toText = await owner()
    .patch(`/dashboards/widgets/${stat.id}`)
    .send({ chartType: 'text', displayConfig: { markdown: 'Now a note' } });
  expectStatus(toText, 200);
  expect(toText.body).toEqual(expect.objectContaining({ chartType: 'text', dataSourceId: null, queryConfig: null }));
  const back = await owner().patch(`/dashboards/widgets/${stat.id}`).send({ chartType: 'stat-card', dataSourceId: source.id, queryConfig: query });
  expectStatus(back, 200);
  expect(back.body.dataSourceId).toBe(source.id);
});

test('the data calls skip text widgets: the dashboard call has no entry for them, the widget call says it has no data', async () => {
  const { dashboard, text, stat } = await dashboardWithText();
  const data = await owner().post(`/dashboards/${dashboard.id}/data`).send({});
  expectStatus(data, 201);
  expect(data.body.widgets.map((e: Json) => e.widgetId)).toEqual([stat.id]);
  expect(data.body.widgets[0].data[0]).toEqual({ [`${source.servingRelation}.amount`]: '1200' });
  const one = await owner().post(`/dashboards/widgets/${text.id}/data`).send({});
  expectError(one, 400, 'widget_has_no_data');
  expect(one.body.error.message).toBe('Widget "About" (' + text.id + ') is a text widget: it has no query, so no data');
  // The validate endpoint takes a text widget as it is, and refuses one with a query.
  const ok = await owner()
    .post('/dashboards/validate')
    .send({ widgets: [{ title: 'About', chartType: 'text', displayConfig: { markdown: '# Hi' } }] });
  expect(ok.body.ok).toBe(true);
  const bad = await owner()
    .post('/dashboards/validate')
    .send({ widgets: [{ title: 'About', chartType: 'text', queryConfig: {} }] });
  expect(bad.body.errors).toEqual([expect.objectContaining({ ruleId: 'malformed', message: 'A text widget has no queryConfig: leave it out' })]);
});

test('export and import carry a text widget: its Markdown, no source, its place on the grid', async () => {
  const { dashboard } = await dashboardWithText();
  const exported = await owner().get(`/dashboards/${dashboard.id}/export`);
  expectStatus(exported, 200);
  const portable = exported.body.widgets.find((w: Json) => w.chartType === 'text');
  expect(portable).toEqual({ key: 'w1', title: 'About', chartType: 'text', displayConfig: { markdown: MARKDOWN } });
  const [sourceEntry] = exported.body.dataSources;
  const imported = await owner()
    .post('/dashboards/import')
    .send({ ...exported.body, name: uniqueName('Notes copy'), dataSourceMappings: { [sourceEntry.exportId]: source.id } });
  expectStatus(imported, 201);
  const text = imported.body.widgets.find((w: Json) => w.chartType === 'text');
  expect(text).toEqual(expect.objectContaining({ title: 'About', dataSourceId: null, queryConfig: null, displayConfig: { markdown: MARKDOWN } }));
  expect(imported.body.layout).toContainEqual({ widgetId: text.id, x: 0, y: 0, w: 12, h: 2 });
  // The export of the import is the same payload.
  const again = await owner().get(`/dashboards/${imported.body.id}/export`);
  expect(again.body.widgets).toEqual(exported.body.widgets);

  // A payload whose text widget names a source, or whose chart has none, is refused naming the widget's field.
  const refused = await owner()
    .post('/dashboards/import')
    .send({
      ...exported.body,
      name: uniqueName('Bad'),
      dataSourceMappings: { [sourceEntry.exportId]: source.id },
      widgets: exported.body.widgets.map((w: Json) => (w.chartType === 'text' ? { ...w, dataSource: sourceEntry.exportId } : { ...w, dataSource: undefined })),
    });
  expectError(refused, 400, 'validation_failed');
  expect(refused.body.error.details.map((d: Json) => d.path)).toEqual(expect.arrayContaining(['widgets.0.dataSource', 'widgets.1.dataSource']));
});

test('the report PDF prints the rendered Markdown of a text tile, its script and javascript: link as inert text', async () => {
  const { dashboard } = await dashboardWithText();
  const res = await owner()
    .get(`/dashboards/${dashboard.id}/report.pdf`)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expectStatus(res, 200);
  const pdf = await inspectPdf(res.body as Buffer, { draw: false });
  const text = pdf.pages.map((p) => p.text).join('\n');
  // The heading and list as text (no `##`, no `-`), bold without its asterisks; the stat tile beside it.
  expect(text).toContain('Quarterly notes');
  // pdf.js reads a bold run apart from the words around it: spaces between runs are not the PDF's.
  expect(text).toMatch(/Figures are\s+net of refunds\s*\./);
  expect(text).toMatch(/• EU first\s+• then US/);
  expect(text).not.toContain('## Quarterly');
  expect(text).not.toContain('**net');
  expect(text).toContain('1,200');
  // Raw HTML is shown as the characters it is made of, never run; the unsafe link stays Markdown source text.
  expect(text).toContain('<script>alert(1)</script>');
  expect(text).toContain('[bad](javascript:alert(1))');
});
