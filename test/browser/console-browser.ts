import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startHarness, type Harness } from '../harness';
import { chromiumPath } from './chromium-path';

/** Screenshots of each console page land here (README "Web console" names it), for a reviewer to look at. */
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../test-results/console-screenshots');

export interface ConsoleStack {
  harness: Harness;
  /** The service's own origin, e.g. http://127.0.0.1:41234, serving the API and the console under /console/. */
  baseUrl: string;
  browser: Browser;
  /** A fresh browser profile (no cookies), as a new person would arrive. */
  newContext(): Promise<BrowserContext>;
  /** A page in a fresh profile, signed in with `token` through the sign-in page. */
  signedInPage(token: string): Promise<Page>;
  /** CSP violations and uncaught page errors seen so far, cleared: for a test that provokes them on purpose. */
  takeProblems(): string[];
  /** Stops everything; throws if any page broke the CSP or threw an uncaught error meanwhile (so every file checks both). */
  close(): Promise<void>;
}

/**
 * The real service (the test stack's PostgreSQL and Temporal, a worker) listening
 * on a port, and a real headless Chromium driven by Playwright. The console is
 * the build scripts/run.mjs made before jest started.
 */
export async function startConsoleStack(
  options: { worker?: boolean; /** Hosts the worker's HTTP steps may call (a stub's). */ httpAllowList?: string[] } = {},
): Promise<ConsoleStack> {
  if (!fs.existsSync(path.resolve(__dirname, '../../console/dist/index.html'))) {
    throw new Error('console/dist is missing: npm test builds it (node scripts/run.mjs setup builds it too)');
  }
  const harness = await startHarness();
  if (options.worker !== false) await harness.startWorker(options.httpAllowList ? { httpAllowList: options.httpAllowList } : undefined);
  const server = harness.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    // Root in a sandbox-less container; no calls home (the network is closed, and they would slow every start).
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
  // What no page may do, whatever the test: break the Content-Security-Policy, or throw without handling it.
  const problems: string[] = [];
  const newContext = async () => {
    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1400, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
    context.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(`${message.page()?.url()}: ${message.text()}`);
    });
    context.on('weberror', (error) => problems.push(`${error.page()?.url()}: uncaught ${error.error().message}`));
    return context;
  };
  return {
    harness,
    baseUrl,
    browser,
    newContext,
    async signedInPage(token) {
      const context = await newContext();
      const page = await context.newPage();
      await signIn(page, token);
      return page;
    },
    takeProblems: () => problems.splice(0),
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await harness.close();
      if (problems.length > 0) throw new Error(`the console's pages broke their CSP or threw:\n${problems.join('\n')}`);
    },
  };
}

/** Signs in through the sign-in page as a person does, and waits for the console's frame. */
export async function signIn(page: Page, token: string, at = '/console/'): Promise<void> {
  await page.goto(at);
  await page.getByRole('textbox', { name: 'Access token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Writes a full-page screenshot to SCREENSHOT_DIR/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (each as `rule: first target`); [] when there are none. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> would be refused).
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // Runs in the page: its globals, not Node's.
    const { axe, document } = globalThis as any;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>)
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}
