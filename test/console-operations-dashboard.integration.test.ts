import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';

/**
 * Runs as data in a real browser (issue 41): the Operations dashboard made from
 * its template on the dashboards list draws its four tiles over the
 * organization's runs, and the built-in sources show as read-only on the data
 * sources pages, without edit or delete controls.
 */

let stack: ConsoleStack;
let org: TestOrg;
let page: Page;

/** Runs as the worker records them: three completed, one failed at step "call", one model call with its usage. */
async function seedRuns(): Promise<void> {
  const db = stack.harness.services.db;
  await db.query(
    `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, error, started_at, finished_at)
     SELECT 'ops-' || $2 || '-' || g, $1::uuid, '01a2051d-0000-7000-8000-00000000f10e', 'orders-sync', 1, 'webhook',
            CASE WHEN g = 4 THEN 'failed' ELSE 'completed' END, '{}'::jsonb,
            CASE WHEN g = 4 THEN '{"stepId": "call", "message": "Step \\"call\\" (core.http) failed: 502"}'::jsonb END,
            now() - g * interval '1 hour', now() - g * interval '1 hour' + g * interval '300 milliseconds'
       FROM generate_series(1, 4) g`,
    [org.organizationId, org.organizationSuid],
  );
  await db.query(
    `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, started_at, finished_at, usage)
     VALUES ($1, 'classify', 'ai.llm-call', 0, 'completed', 1, now() - interval '1 hour', now() - interval '1 hour', $2::jsonb)`,
    [`ops-${org.organizationSuid}-1`, JSON.stringify({ provider: 'openai', model: 'gpt-4o-mini', inputTokens: 2_400_000, outputTokens: 600_000, cost: 0.72 })],
  );
}

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  await seedRuns();
  page = await stack.signedInPage(org.ownerToken);
}, 120_000);
afterAll(() => stack?.close());

const tile = (title: string) => page.locator('article.tile', { has: page.getByRole('heading', { name: title, exact: true }) });

test('"New from template: Operations" makes the dashboard and its four tiles draw the runs', async () => {
  await page.goto('/console/dashboards');
  await page.getByRole('button', { name: 'New from template: Operations' }).click();
  await page.getByRole('heading', { level: 1, name: 'Operations' }).waitFor();
  for (const [title, type] of [
    ['Runs per day by status', 'bar'],
    ['p95 duration per workflow (ms)', 'bar'],
    ['Failures by step', 'bar'],
    ['Model cost by model', 'bar'],
  ]) {
    const chart = tile(title).getByRole('img', { name: `${title} (${type} chart)` });
    await chart.locator('svg path').first().waitFor({ state: 'attached' });
  }
  await tile('Failures by step').locator('svg text', { hasText: 'call' }).first().waitFor();
  await tile('Model cost by model').locator('svg text', { hasText: 'gpt-4o-mini' }).first().waitFor();
  // The cost axis is money (the measure's currency format).
  await tile('Model cost by model')
    .locator('svg text', { hasText: /^\$0\.\d+$/ })
    .first()
    .waitFor();
  await tile('p95 duration per workflow (ms)').locator('svg text', { hasText: 'orders-sync' }).first().waitFor();
  await screenshot(page, 'dashboards-operations');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('the built-in sources are listed as read-only, and their page has no edit or delete controls', async () => {
  await page.goto('/console/data/sources');
  const row = page.getByRole('row', { name: /^Runs / });
  await row.getByText('Built-in · read-only').waitFor();
  await row.getByRole('link', { name: 'Runs', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Built in and read-only' }).waitFor();
  await page.getByText('startedAt').first().waitFor();
  // Beyond its summed fields, the measures its model computes, as the query builder offers them; nothing to add.
  const measures = page.getByRole('table', { name: 'Measures' });
  await measures.getByRole('row', { name: /^durationP95 p95 duration \(ms\)$/ }).waitFor();
  await measures.getByRole('row', { name: /^failureRate Failure rate$/ }).waitFor();
  expect(await page.getByRole('heading', { name: /Calculated fields|Window dimensions/ }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /Delete/ }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /Edit|Add/ }).count()).toBe(0);
  await screenshot(page, 'data-source-built-in');
  expect(await accessibilityViolations(page)).toEqual([]);
});
