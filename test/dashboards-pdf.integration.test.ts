import request from 'supertest';
import { countPixels, inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { corruptPng, dataUri, solidPng } from '../src/dashboards/pdf/testing/fixtures';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';

/**
 * POST /dashboards/{id}/export-pdf through the app: the answer is a PDF
 * attachment whose pages, read back through pdf.js and drawn to pixels,
 * hold the text, the chart and the table that were sent.
 */

let h: Harness;
let org: TestOrg;
let other: TestOrg;
let dashboard: { id: string; name: string };

type Json = Record<string, unknown>;

/** The PDF as bytes (supertest would otherwise try to read it as text). */
async function exportPdf(dashboardId: string, body: Json, token = org.ownerToken) {
  return as(h.app, token)
    .post(`/dashboards/${dashboardId}/export-pdf`)
    .send(body)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

/** The error body of a refused export (the parser above leaves it as bytes). */
const errorOf = (res: request.Response) => ({ status: res.status, body: JSON.parse((res.body as Buffer).toString('utf8')) });

const CHART = `<svg width="300" height="150" viewBox="0 0 300 150">
  <rect x="10" y="10" width="120" height="130" fill="#ff0000"/>
  <line x1="150" y1="140" x2="290" y2="10" stroke="#0000ff" stroke-width="4"/>
  <text x="150" y="20">Revenue</text>
</svg>`;

beforeAll(async () => {
  h = await startHarness();
  [org, other] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
  const res = await as(h.app, org.ownerToken)
    .post('/dashboards')
    .send({ name: uniqueName('Quarterly review') });
  expectStatus(res, 201);
  dashboard = res.body;
});
afterAll(() => h.close());

test('a PDF attachment named from the title, with the heading text and the chart drawn on the page', async () => {
  const res = await exportPdf(dashboard.id, { title: 'Q3 sales', html: `<h1>Sales report</h1><p>Revenue by <b>region</b>.</p>${CHART}` });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="Q3 sales\.pdf"/);
  const pdf = await inspectPdf(res.body as Buffer);
  expect(pdf.title).toBe('Q3 sales');
  expect(pdf.pages).toHaveLength(1);
  const [page] = pdf.pages;
  expect(page.text).toContain('Sales report');
  expect(page.text).toContain('Revenue');
  // A4 portrait: 595.28 × 841.89 points, drawn at one pixel a point.
  expect(Math.abs(page.width - 595.28)).toBeLessThan(1);
  expect(Math.abs(page.height - 841.89)).toBeLessThan(1);
  // The chart's red bar is on the page: thousands of red pixels, none of which any text would make.
  expect(countPixels(page, (r, g, b) => r > 200 && g < 60 && b < 60)).toBeGreaterThan(5_000);
  expect(countPixels(page, (r, g, b) => b > 200 && r < 60 && g < 60)).toBeGreaterThan(100);
});

test('a 200-row table spans several pages with its header row on each, every row once', async () => {
  const rows = Array.from({ length: 200 }, (_, i) => `<tr><td>row-${i + 1}</td><td>${(i + 1) * 3}</td></tr>`).join('');
  const res = await exportPdf(dashboard.id, { html: `<table><thead><tr><th>Name</th><th>Amount</th></tr></thead><tbody>${rows}</tbody></table>` });
  expect(res.status).toBe(200);
  const pdf = await inspectPdf(res.body as Buffer, { draw: false });
  expect(pdf.pages.length).toBeGreaterThanOrEqual(3);
  for (const page of pdf.pages) expect(page.text).toMatch(/^Name\s+Amount\s+row-/);
  const seen = pdf.pages.flatMap((p) => p.items.map((item) => item.str).filter((s) => s.startsWith('row-')));
  expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => `row-${i + 1}`));
});

test('without a title the file is named after the dashboard; landscape Letter pages; images from data URIs', async () => {
  const png = dataUri('image/png', solidPng(40, 20, [0, 160, 0]));
  const res = await exportPdf(dashboard.id, { landscape: true, pageSize: 'Letter', html: `<p>Logo</p><img src="${png}" width="200" height="100">` });
  expect(res.status).toBe(200);
  expect(res.headers['content-disposition']).toContain(`filename="${dashboard.name}.pdf"`);
  const [page] = (await inspectPdf(res.body as Buffer)).pages;
  expect([page.width, page.height]).toEqual([792, 612]);
  expect(page.ops.paintImageXObject).toBe(1);
  expect(countPixels(page, (r, g, b) => g > 140 && r < 40 && b < 40)).toBeGreaterThan(5_000);
});

test('any title gives a safe file name; unknown markup degrades to its text', async () => {
  const res = await exportPdf(dashboard.id, {
    title: 'Q3 "final"\r\n../../etc/passwd ✓',
    html: '<marquee>Still <blink>readable</blink></marquee><custom-x>text</custom-x><script>alert(1)</script>',
  });
  expect(res.status).toBe(200);
  const disposition = res.headers['content-disposition'];
  expect(disposition).not.toMatch(/[\r\n]/);
  expect(disposition).not.toContain('/');
  expect(disposition).toMatch(/filename\*=UTF-8''.*\.pdf$/);
  const [page] = (await inspectPdf(res.body as Buffer, { draw: false })).pages;
  expect(page.text).toContain('Still readable');
  expect(page.text).toContain('text');
  expect(page.text).not.toContain('alert');
});

test('refusals: 413 past the HTML bound, 400 for a broken image or an unknown page size, 404 for a dashboard not the caller’s', async () => {
  const tooBig = errorOf(await exportPdf(dashboard.id, { html: `<p>${'x'.repeat(5 * 1024 * 1024)}</p>` }));
  expect(tooBig).toMatchObject({ status: 413, body: { error: { code: 'pdf_input_too_large' } } });

  const broken = errorOf(await exportPdf(dashboard.id, { html: `<img alt="logo" src="${dataUri('image/png', corruptPng())}">` }));
  expect(broken).toMatchObject({ status: 400, body: { error: { code: 'pdf_input_invalid' } } });

  const size = errorOf(await exportPdf(dashboard.id, { html: '<p>x</p>', pageSize: 'A3' }));
  expect(size).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });

  const foreign = errorOf(await exportPdf(dashboard.id, { html: '<p>x</p>' }, other.ownerToken));
  expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  const unknown = errorOf(await exportPdf('00000000-0000-4000-8000-000000000000', { html: '<p>x</p>' }));
  expect(unknown.status).toBe(404);
});

test('a viewer may export (dashboards:view); no token is 401', async () => {
  const res = await exportPdf(dashboard.id, { html: '<p>for the board</p>' }, org.tokens.viewer);
  expect(res.status).toBe(200);
  expectError(await request(h.app).post(`/dashboards/${dashboard.id}/export-pdf`).send({ html: '<p>x</p>' }), 401, 'unauthorized');
});
