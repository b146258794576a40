/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

type Project = NonNullable<Config['projects']>[number] & object;

const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true }, target: 'es2022' } }],
  },
  testTimeout: 60_000,
} satisfies Project;

/**
 * Two tiers (`npx jest --selectProjects unit|integration`; `npm test` runs both).
 * A project's global setup runs only when one of its files is selected, so
 * `npx jest --selectProjects unit` or `npx jest src/db` never start the stack.
 */
const config: Config = {
  projects: [
    {
      ...shared,
      // Next to the code, no database: seconds. workflows/ tests start a Temporal dev server of their own (workflow-env.fixture.ts).
      displayName: 'unit',
      roots: ['<rootDir>/src', '<rootDir>/activities', '<rootDir>/workflows', '<rootDir>/cube'],
      testMatch: ['**/*.test.ts'],
    },
    {
      ...shared,
      // Against a real PostgreSQL and a real Temporal dev server, started once per jest run.
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      // Files are named *.integration.test.ts; any *.test.ts under test/ still runs here, so a misnamed file is never skipped.
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
  // Two cores: integration files share one PostgreSQL and one Temporal server.
  maxWorkers: 2,
  testTimeout: 60_000,
};

export default config;
