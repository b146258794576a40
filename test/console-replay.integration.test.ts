import type { Page } from 'playwright-core';
import { as } from './harness';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { stepOf, workflowApi, type Step, type WorkflowApi } from './workflow-api';

/**
 * Replay in the console: from a step of a run's page (POST /executions/{id}/replay), a replay's page with
 * its origin and its steps' marks, the bulk replay screen (dry run, start, progress), and a viewer without
 * any of the controls. Its own organization, so its runs are its own.
 */

let stack: ConsoleStack;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;

const setStep = (stepId: string, values: Record<string, unknown>): Step => ({ stepId, stepType: 'core.set', input: { values } });

/** A workflow whose `call` fails (an address the HTTP step refuses), and its failed run. */
const billing = { name: uniqueName('billing'), id: '', runId: '' };
/** A workflow with two plain steps, run twice: what the bulk replays. */
const tally = { name: uniqueName('tally'), id: '', runIds: [] as string[] };

async function saveSteps(workflow: { id: string; name: string }, steps: Step[]) {
  const res = await as(stack.harness.app, org.ownerToken).put(`/workflows/${workflow.id}`).send({ name: workflow.name, steps });
  expect(res.status).toBe(200);
}

/** The replay-mark badge of each top-level step of the run page, as `stepId: mark`. */
async function marks(): Promise<string[]> {
  const rows = page.getByRole('list', { name: 'Steps' }).locator(':scope > li');
  const out: string[] = [];
  for (const row of await rows.all()) {
    const name = await row.locator('.step-name strong').innerText();
    const mark = await row.locator('.replay-mark').innerText();
    out.push(`${name}: ${mark}`);
  }
  return out;
}

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);

  Object.assign(
    billing,
    await a.createWorkflow(
      [
        setStep('load', { region: 'eu' }),
        setStep('prepare', { amount: '{{ initial.amount }}' }),
        { stepId: 'call', stepType: 'core.http', input: { url: 'http://localhost/' } },
      ],
      { name: billing.name },
    ),
  );
  const failed = await a.runAndWait(billing.id, { amount: 5 });
  expect(failed).toMatchObject({ status: 'failed', error: { stepId: 'call' } });
  billing.runId = failed.id;

  Object.assign(tally, await a.createWorkflow([setStep('a', { x: 1 }), setStep('b', { n: '{{ initial.n }}' })], { name: tally.name }));
  for (const n of [1, 2]) {
    const run = await a.runAndWait(tally.id, { n });
    expect(run.status).toBe('completed');
    tally.runIds.push(run.id);
  }
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(() => stack?.close());

test("replay from a failed step: the API's field message shows; once the workflow is fixed, the current version runs with an edited output, and the replay shows its origin and marks", async () => {
  await page.goto(`/console/runs/${billing.runId}`);
  await page.getByRole('heading', { name: `Run of ${billing.name}` }).waitFor();
  // Every top-level step offers it; the link opens the form at an address of its own.
  expect(await page.getByRole('link', { name: /^Replay from here/ }).count()).toBe(3);
  await page.getByRole('link', { name: 'Replay from here (step call)' }).click();
  expect(new URL(page.url()).searchParams.get('replay')).toBe('call');
  const form = page.getByRole('form', { name: 'Replay from call' });
  await form.waitFor();

  // A current version without the step: the API refuses, naming fromStepId.
  await saveSteps(billing, [setStep('load', { region: 'eu' }), setStep('prepare', { amount: '{{ initial.amount }}' }), setStep('deliver', { ok: true })]);
  await form.getByLabel(/current version/).check();
  await form.getByRole('button', { name: 'Replay from call' }).click();
  const alert = form.getByRole('alert');
  await expect(alert.innerText()).resolves.toMatch(/fromStepId[\s\S]*has no step "call"/);

  // Fixed: `call` no longer reaches out; a step after it is new.
  await saveSteps(billing, [
    setStep('load', { region: 'eu' }),
    setStep('prepare', { amount: '{{ initial.amount }}' }),
    setStep('call', { sent: '{{ prepare.amount }}' }),
    setStep('done', { ok: true }),
  ]);
  await form.getByText(/Outputs of earlier steps/).click();
  const prepared = form.getByLabel('Output of prepare to reuse (JSON)');
  await expect(prepared.inputValue()).resolves.toContain('"amount": 5');
  await prepared.fill('{"amount": 9}');
  await form.getByText('Outputs of earlier steps (1 changed)').waitFor();
  await screenshot(page, 'runs-replay-form');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Replay from call' }).click();

  await page.waitForURL((url) => url.pathname.startsWith('/console/runs/') && !url.pathname.endsWith(billing.runId));
  const replayId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  await eventually(
    () => page.locator('dl.run-facts').innerText(),
    (text) => /Mode\s+replay/i.test(text) && /Status\s+completed/i.test(text),
    30_000,
  );
  await expect(page.locator('.replay-of').innerText()).resolves.toMatch(new RegExp(`Replay of run ${billing.runId} from step call`));
  await expect(marks()).resolves.toEqual(['load: reused', 'prepare: changed', 'call: changed', 'done: new']);
  await screenshot(page, 'runs-replay-run');
  expect(await accessibilityViolations(page)).toEqual([]);

  const replay = await a.readExecution(replayId);
  expect(replay).toMatchObject({ mode: 'replay', replayOf: billing.runId, replayFromStepId: 'call', status: 'completed' });
  expect([9, '9']).toContain(stepOf(replay, 'call').output.sent);

  await page.getByRole('link', { name: `run ${billing.runId}` }).click();
  await page.waitForURL((url) => url.pathname.endsWith(billing.runId));
});

test('bulk replay: a refused request shows its message, a preview names the runs, Start needs a preview of the same form, and progress reaches done', async () => {
  await page.goto('/console/runs');
  await page.getByRole('link', { name: 'Bulk replay' }).click();
  await page.getByRole('heading', { name: 'Bulk replay' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/runs/replay');
  const form = page.getByRole('form', { name: 'Bulk replay' });
  const start = form.getByRole('button', { name: /^Start/ });

  await form.getByLabel('Workflow').selectOption({ label: tally.name });
  await form.getByLabel('From step').fill('nope');
  await form.getByLabel('Version').selectOption('current');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('alert').innerText()).resolves.toContain('has no step "nope"');
  expect(await start.isDisabled()).toBe(true);

  await form.getByLabel('Status').selectOption('completed');
  await form.getByLabel('From step').fill('b');
  await form.getByLabel('Version').selectOption('original');
  await form.getByRole('button', { name: 'Preview' }).click();
  await page.getByText('2 runs match.').waitFor();
  const matching = page.getByRole('list', { name: 'Matching runs' }).getByRole('link');
  await expect(matching.allInnerTexts()).resolves.toEqual(tally.runIds);
  await expect(start.innerText()).resolves.toBe('Start: replay 2 runs');
  await screenshot(page, 'runs-bulk-replay-preview');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The form changed since the preview: no start until it is previewed again.
  await form.getByLabel('From step').fill('a');
  await page.getByText('The form changed since this preview').waitFor();
  expect(await start.isDisabled()).toBe(true);
  await form.getByLabel('From step').fill('b');
  expect(await start.isDisabled()).toBe(false);

  await start.click();
  await page.waitForURL((url) => url.searchParams.has('bulk'));
  await page.getByText('2 of 2 — done').waitFor({ timeout: 30_000 });
  const started = page.getByRole('table', { name: 'Runs of the bulk replay' }).locator('tbody tr');
  await expect(started.count()).resolves.toBe(2);
  await expect(started.allInnerTexts()).resolves.toEqual([expect.stringMatching(/started$/), expect.stringMatching(/started$/)]);
  await screenshot(page, 'runs-bulk-replay-progress');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The progress page is an address: a reload keeps it.
  await page.reload();
  await page.getByText('2 of 2 — done').waitFor();

  // A replayed run: `a` reused, `b` run again with the same output.
  await started.nth(0).getByRole('link').nth(1).click();
  await page.getByRole('heading', { name: `Run of ${tally.name}` }).waitFor();
  await eventually(
    () => page.locator('dl.run-facts').innerText(),
    (text) => /Status\s+completed/i.test(text),
    30_000,
  );
  await expect(marks()).resolves.toEqual(['a: reused', 'b: unchanged']);
});

test('the runs list filters replays by mode', async () => {
  await page.goto('/console/runs?mode=replay');
  await expect(page.getByLabel('Mode').inputValue()).resolves.toBe('replay');
  await eventually(
    () => page.locator('table.runs-table tbody tr').count(),
    (n) => n === 3,
    15_000,
  );
  const modes = await page.locator('table.runs-table tbody tr td:nth-child(3)').allInnerTexts();
  expect(modes).toEqual(['replay', 'replay', 'replay']);
});

test('a viewer sees no replay controls', async () => {
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/runs/${billing.runId}?replay=call`);
  await viewer.getByRole('heading', { name: `Run of ${billing.name}` }).waitFor();
  await viewer.getByRole('list', { name: 'Steps' }).waitFor();
  expect(await viewer.getByRole('link', { name: /Replay from here/ }).count()).toBe(0);
  expect(await viewer.getByRole('form', { name: /Replay from/ }).count()).toBe(0);

  await viewer.goto('/console/runs');
  await viewer.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
  await viewer.locator('table.runs-table').waitFor();
  expect(await viewer.getByRole('link', { name: 'Bulk replay' }).count()).toBe(0);

  await viewer.goto('/console/runs/replay');
  await viewer.getByText('Replaying runs needs the workflows:admin permission.').waitFor();
  expect(await viewer.getByRole('form', { name: 'Bulk replay' }).count()).toBe(0);
  await screenshot(viewer, 'runs-bulk-replay-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.context().close();
});
