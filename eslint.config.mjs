// The layer rules of README "Layout", checked: what each part of the tree may import.
// `import type` is always allowed (types are erased); the rules are about what runs.
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// workflows/*.fixture.ts: the workflow unit tests' Temporal environment, test code that the bundle never imports.
const tests = ['**/*.test.ts', 'workflows/**/*.fixture.ts', 'test/**', 'bench/**'];

// One rule object per area: flat config replaces a rule's options wholesale, so each area lists everything it forbids.
const persistence = [
  { name: 'typeorm', message: 'TypeORM belongs in repositories, entities, migrations, src/db and src/infra.', allowTypeImports: true },
  { name: 'pg', message: 'pg belongs in repositories, src/db and src/infra.', allowTypeImports: true },
];
// Deep paths (`typeorm/find-options/...`, `pg/lib`) and the pg family (`pg-pool`, `pg-copy-streams`) are the same thing.
const persistenceDeep = {
  group: ['typeorm/**', 'pg/**', 'pg-*'],
  message: 'Database packages belong in repositories, entities, migrations, src/db and src/infra.',
  allowTypeImports: true,
};
const noTestCode = { group: ['**/test/**', '**/bench/**'], message: 'Application code never imports tests or benchmarks.' };
const noCompositionRoot = {
  group: ['**/app/*', '**/src/app/**'],
  message: 'Receive dependencies through a constructor or factory; only src/main.ts, src/app/ and the CLI wire the app.',
  allowTypeImports: true,
};
// The API and the domains do not run activity code: what both need (the outbound client, src/outbound) lives in src/.
const noActivities = {
  group: ['**/activities', '**/activities/**'],
  message: 'Only the composition root (src/app) and the worker factory (src/temporal/worker.ts) import activities; shared code lives in src/.',
  allowTypeImports: true,
};
// The one door to Cube (cube/semantic-layer.ts): outside cube/, nothing else of cube/ and nothing of Cube's packages.
const cubeDoor = {
  group: ['**/cube/*', '!**/cube/semantic-layer', '@cubejs-backend/*', '@cubejs-backend/**'],
  message: 'Outside cube/, use Cube through cube/semantic-layer.ts only (its SemanticLayer interface).',
};
// The unit tier (jest.config.ts) runs without PostgreSQL; the workflow tests start only a Temporal dev server of their own.
const noStack = {
  group: ['**/test/harness', '**/test/factories', '**/test/global-setup', '**/db/data-source', '**/infra/*'],
  message: 'Unit tests run without PostgreSQL or the shared stack: move this test to test/*.integration.test.ts.',
};
const restricted = (...patterns) => ['error', { paths: persistence, patterns: [persistenceDeep, ...patterns] }];

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.scratch/**', 'bench-results/**', 'coverage/**', 'dist/**', 'console/dist/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    // The console runs in the browser: DOM globals, React's rules of hooks, and only the public API (src/ code but the shared chart module stays out).
    files: ['console/**/*.{ts,tsx,mts}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**', '!**/src/dashboards/charts/**'],
              message: 'The console is a client of the public API: it imports no server code (the chart module is shared through @charts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    ignores: ['console/**'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': restricted(noTestCode, noCompositionRoot, noActivities, cubeDoor),
    },
  },
  {
    // src/infra starts the embedded PostgreSQL server itself, before any pool exists.
    files: ['src/**/*.repository.ts', 'src/**/*.entity.ts', 'src/db/**', 'src/infra/**', 'migrations/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [noTestCode, noCompositionRoot, noActivities, cubeDoor] }] },
  },
  {
    // The composition roots: they build everything else (src/temporal/worker.ts registers the activities).
    files: ['src/main.ts', 'src/app/**', 'src/cli/**', 'src/temporal/worker.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restricted(noTestCode, cubeDoor) },
  },
  {
    // cube/ sits below the domains: src/analytics and src/data-sources call it, so it may only take their types.
    files: ['cube/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted(noTestCode, noCompositionRoot, {
        group: ['**/src/data-sources/**', '**/src/analytics/**'],
        message: 'cube/ sits below the analytics domains: import their types only; shared SQL helpers live in src/db/sql.ts.',
        allowTypeImports: true,
      }),
    },
  },
  {
    // Deterministic workflow code: the workflow SDK, its own files (one folder, no `..`), and types from anywhere.
    files: ['workflows/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|\\./[^./][^/]*$)',
              message: 'Workflow code imports only @temporalio/workflow, its own files, and `import type` (determinism).',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', { selector: 'ImportExpression', message: 'No dynamic imports in workflow code (determinism).' }],
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  {
    // The tracing interceptors, the one workflow module that may also import the OpenTelemetry packages made for the sandbox.
    files: ['workflows/tracing-interceptors.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|@temporalio/interceptors-opentelemetry/lib/workflow$|@opentelemetry/api$|\\./[^./][^/]*$)',
              message: 'The tracing interceptors import only the workflow SDK, the interceptors made for the sandbox and the OpenTelemetry API.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // CommonJS loaded as it is, with no transform: by Jest (test/jest-runtime.cjs), by a worker thread (png-decode-worker.cjs).
    files: ['**/*.cjs'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: tests,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [cubeDoor] }],
      // Tests reach into private members and loose JSON on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The unit tier runs without the stack (jest.config.ts); a test that needs it belongs in test/ as an integration test.
    files: ['src/**/*.test.ts', 'activities/**/*.test.ts', 'workflows/**/*.test.ts', 'workflows/**/*.fixture.ts', 'cube/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [noStack, cubeDoor],
        },
      ],
    },
  },
  {
    // The tests of cube/ (cube/*.test.ts, test/cube-*.test.ts) may reach behind the door: it is what they test.
    files: ['test/cube-*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['cube/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [noStack],
        },
      ],
    },
  },
);
