/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

type Project = NonNullable<Config['projects']>[number] & object;

const shared = {
  testEnvironment: 'node',
  // Jest's runtime, keeping each module's compiled code for the next file the same worker runs and handing modules
  // the builtins as parameters (see the file).
  runtime: '<rootDir>/test/jest-runtime.cjs',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true }, target: 'es2022' } }],
  },
  testTimeout: 60_000,
  // Dynamic imports name the compiled file (`import('./engine.js')`, as node16 module resolution asks); Jest runs the source.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
} satisfies Project;

/**
 * Three tiers (`npx jest --selectProjects unit|workflow|integration`; `npm test` runs all):
 * - unit: next to the code, starts nothing;
 * - workflow: workflows/*.test.ts, the real workflow bundle on a Temporal dev server, activities mocked;
 * - integration: test/, against a real PostgreSQL and a real Temporal dev server.
 * A project's global setup runs only when one of its files is selected, so `npx jest --selectProjects unit`
 * or `npx jest src/db` start nothing; when both run, they share one dev server and one workflow bundle.
 */
const config: Config = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/src', '<rootDir>/activities', '<rootDir>/cube', '<rootDir>/console/src'],
      testMatch: ['**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'workflow',
      roots: ['<rootDir>/workflows'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/workflow-global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      // Files are named *.integration.test.ts; any *.test.ts under test/ still runs here, so a misnamed file is never skipped.
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
  // Five workers on two cores: an integration file spends most of its time waiting (on PostgreSQL, Temporal, its
  // worker processes, Chromium, its own timers and polls), and more files at once fill the cores. Jest took 961 s
  // with two workers, 612 s with three, 549 s with four and 431–544 s with five, on a shared 2-core machine.
  maxWorkers: 5,
  // Longest files first on a fresh clone too, from test/durations.json (see the file).
  testSequencer: '<rootDir>/test/jest-sequencer.cjs',
  testTimeout: 60_000,
};

export default config;
