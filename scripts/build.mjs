#!/usr/bin/env node
// `npm run build` (through scripts/run.mjs): the production output in dist/, run with
// `node dist/src/main.js api|worker|all` and `node dist/src/cli/admin.js`, no TypeScript at run time.
//   1. tsc -p tsconfig.build.json: src/, workflows/, activities/, migrations/, cube/ as CommonJS in dist/
//      (migration classes included: the service applies them from there at start);
//   2. the files of those folders that are not TypeScript (a worker thread's .cjs), copied beside them;
//   3. the workflow bundle, dist/workflow-bundle.js, that the worker loads instead of bundling at every start.
// `--if-changed` does nothing when dist/ was built from the same sources (a hash of them is kept in dist/);
// `--check` builds nothing and exits 0 when dist/ is up to date, 1 when not (the tests ask, test/worker-process.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');
const SOURCE_DIRS = ['src', 'workflows', 'activities', 'migrations', 'cube'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/build.mjs'];
const HASH_FILE = path.join(out, '.build-hash');
/** Unit tests and test helpers stay out of dist/ (tsconfig.build.json excludes the same). */
const isTestFile = (rel) => /\.(test|fixture)\.ts$/.test(rel) || rel.split(path.sep).includes('testing');

function filesUnder(dir) {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** What dist/ is made from: every source file and the build's own settings, by content. */
function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...SOURCE_DIRS.flatMap(filesUnder), ...INPUT_FILES]) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

const hash = sourceHash();
const upToDate = () => fs.existsSync(HASH_FILE) && fs.readFileSync(HASH_FILE, 'utf8') === hash;
if (process.argv.includes('--check')) process.exit(upToDate() ? 0 : 1);
if (process.argv.includes('--if-changed') && upToDate()) {
  console.error('dist/ is up to date');
  process.exit(0);
}

const started = Date.now();
fs.rmSync(out, { recursive: true, force: true });
console.error('> tsc -p tsconfig.build.json');
execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });

for (const file of SOURCE_DIRS.flatMap(filesUnder)) {
  if (file.endsWith('.ts') || isTestFile(file)) continue;
  fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(out, file));
}

// From the compiled workflows: the bundle holds exactly the code that was built. The worker that loads it must be
// the same @temporalio/worker version that bundled it, which the image guarantees (one lock file, one install).
const require = createRequire(import.meta.url);
const { bundleWorkflowCode } = require('@temporalio/worker');
// The tracing interceptors as src/observability/temporal-tracing.ts names them (WORKFLOW_INTERCEPTOR_MODULES).
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(out, 'workflows/index.js'),
  workflowInterceptorModules: [path.join(out, 'workflows/tracing-interceptors.js')],
});
fs.writeFileSync(path.join(out, 'workflow-bundle.js'), code);

fs.writeFileSync(HASH_FILE, hash);
console.error(`dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
