import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { freePort } from '../src/infra/free-port';
import { createTestOrg } from './factories';
import { type Harness, startHarness } from './harness';

/**
 * Every shell command in README.md and docs/*.md is run as written, against a
 * live service: the real app listening on a free port, with a worker. Each
 * file's runnable blocks run in order in one bash session, so a block may use
 * the variables an earlier one set. `$BASE` is the service's URL and `$TOKEN`
 * an organization owner's token (the README's tour makes its own with the admin CLI).
 */

const root = path.resolve(__dirname, '..');
const docFiles = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].sort();

/** Info strings a fenced block may carry; any other (or none) fails, so no command hides in an unlabeled block. */
const KNOWN_INFO = new Set(['sh', 'bash', 'sh no-run', 'bash no-run', 'json', 'text']);

/** The blocks that cannot run in a test (they start the service, run the suite, build or load): each listed by file and first line. */
const NO_RUN = [
  { file: 'README.md', first: 'npm start   # installs everything, then runs PostgreSQL, a Temporal dev server (Web UI), the API and the worker' },
  { file: 'README.md', first: 'npx jest test/data-stores-records.integration.test.ts' },
  { file: 'docs/operations.md', first: 'DATA_DIR=.data-b PORT=3001 npm start              # other embedded ports, chosen and recorded in .data-b/' },
  { file: 'docs/operations.md', first: 'npm start -- api &' },
  { file: 'docs/operations.md', first: 'npm run build                   # dist/: compiled JavaScript and the prebuilt workflow bundle' },
];

interface Block {
  file: string;
  line: number;
  info: string;
  code: string;
}

/** The fenced code blocks of a Markdown file, with their info strings and opening line numbers. */
function fencedBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[j])) body.push(lines[j++].slice(indent.length));
    blocks.push({ file, line: i + 1, info: info.trim(), code: body.join('\n') });
    i = j;
  }
  return blocks;
}

const isShell = (b: Block) => /^(sh|bash)\b/.test(b.info);
const isNoRun = (b: Block) => isShell(b) && b.info.split(/\s+/).includes('no-run');
const allBlocks = docFiles.flatMap(fencedBlocks);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file's headings make (outside code blocks), repeats numbered as GitHub does. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let inFence = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Runs a script with bash without blocking this process, which serves the API the script calls. */
function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('the documents', () => {
  test('every fenced block is labeled, and only the listed shell blocks are marked no-run', () => {
    const unlabeled = allBlocks.filter((b) => !KNOWN_INFO.has(b.info)).map((b) => `${b.file}:${b.line} "${b.info}"`);
    expect(unlabeled).toEqual([]);
    const noRun = allBlocks.filter(isNoRun).map((b) => ({ file: b.file, first: b.code.split('\n')[0] }));
    expect(noRun).toEqual(NO_RUN);
  });

  test('every curl of a runnable block fails on an HTTP error', () => {
    const loose = allBlocks
      .filter((b) => isShell(b) && !isNoRun(b))
      .flatMap((b) => b.code.split('\n').map((text, i) => ({ where: `${b.file}:${b.line + 1 + i}`, text })))
      .filter(({ text }) => /\bcurl\s/.test(text) && !/\bcurl --fail-with-body -sS\b/.test(text));
    expect(loose).toEqual([]);
  });

  test('every relative link points at an existing file, and every anchor at a heading', () => {
    const broken: string[] = [];
    for (const file of docFiles) {
      const abs = path.join(root, file);
      const text = fs.readFileSync(abs, 'utf8').replace(/^\s*(`{3,}|~{3,})[\s\S]*?^\s*\1\s*$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [ref, anchor] = target.split('#');
        const dest = ref ? path.resolve(path.dirname(abs), ref) : abs;
        if (!fs.existsSync(dest)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the commands, against a live service', () => {
  let h: Harness;
  let server: Server;
  let base: string;
  let token: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startHarness({
      configure: (config) => {
        config.http.webhookBaseUrl = base;
      },
    });
    await h.startWorker();
    server = h.app.listen(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    token = (await createTestOrg(h.services)).ownerToken;
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });

  const runnable = docFiles
    .map((file) => ({ file, blocks: allBlocks.filter((b) => b.file === file && isShell(b) && !isNoRun(b)) }))
    .filter((f) => f.blocks.length);

  test.each(runnable)(
    '$file',
    async ({ blocks }) => {
      // One session per file, stopping at the first failure; each block announces itself on stderr so a failure names it.
      const script = ['set -euo pipefail', ...blocks.map((b) => `echo '--- ${b.file}:${b.line}' >&2\n${b.code}`)].join('\n');
      const run = await bash(script, { ...process.env, BASE: base, TOKEN: token });
      expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({ status: 0, stderr: expect.any(String), stdout: expect.any(String) });
      if (blocks[0].file === 'README.md') {
        expect(run.stdout).toContain('"greeting":"Hello, Ada!"');
        expect(run.stdout).toMatch(/"Paris"/);
      }
    },
    180_000,
  );
});
