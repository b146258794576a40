import { ValidationError } from '../errors/errors';
import { type InstalledNode, resolveInstall, type Uploaded } from './package-resolution';

/** Dependency resolution without a database: order, ranges, cycles, missing packages, installed ones. */

const up = (at: string, name: string, version: string, dependencies: Record<string, string> = {}): Uploaded<null> => ({
  at,
  name,
  version,
  dependencies,
  content: null,
});
const installed = (...nodes: Array<[string, string, Record<string, string>?, ('direct' | 'dependency')?]>) =>
  new Map<string, InstalledNode>(
    nodes.map(([name, version, dependencies = {}, installedAs = 'direct']) => [name, { name, version, dependencies, installedAs }]),
  );

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

test('dependencies install first, each once, the uploaded package last and direct', () => {
  const plan = resolveInstall(
    up('package', 'app', '1.0.0', { ui: '^2.0.0', core: '~1.2.0' }),
    [up('dependencies.0', 'ui', '2.3.1', { core: '>=1.0.0 <2' }), up('dependencies.1', 'core', '1.2.9')],
    new Map(),
  );
  expect(plan.map((p) => [p.uploaded.name, p.installAs, p.previous])).toEqual([
    ['core', 'dependency', undefined],
    ['ui', 'dependency', undefined],
    ['app', 'direct', undefined],
  ]);
});

test('an installed package at a satisfying version is used as it is; one installed directly stays direct when supplied again', () => {
  const plan = resolveInstall(
    up('package', 'app', '1.0.0', { core: '^1.0.0', ui: '1.x' }),
    [up('dependencies.0', 'ui', '1.5.0')],
    installed(['core', '1.4.0'], ['ui', '1.0.0', {}, 'direct']),
  );
  expect(plan.map((p) => [p.uploaded.name, p.installAs, p.previous?.version])).toEqual([
    ['ui', 'direct', '1.0.0'],
    ['app', 'direct', undefined],
  ]);
});

test('missing, unsatisfied and cyclic dependencies are refused, each named at its field', () => {
  const missing = refusal(() =>
    resolveInstall(up('package', 'app', '1.0.0', { core: '^1.0.0', ui: '^1.0.0' }), [up('dependencies.0', 'ui', '1.0.0')], new Map()),
  );
  expect(missing).toMatchObject({
    code: 'dependency_missing',
    details: [{ path: 'package.manifest.dependencies.core', message: expect.stringContaining('core ^1.0.0') }],
  });

  const supplied = refusal(() => resolveInstall(up('package', 'app', '1.0.0', { core: '^2.0.0' }), [up('dependencies.0', 'core', '1.9.0')], new Map()));
  expect(supplied).toMatchObject({
    code: 'dependency_unsatisfied',
    details: [{ path: 'package.manifest.dependencies.core', message: expect.stringContaining('1.9.0') }],
  });

  const old = refusal(() => resolveInstall(up('package', 'app', '1.0.0', { core: '^2.0.0' }), [], installed(['core', '1.0.0'])));
  expect(old).toMatchObject({ code: 'dependency_unsatisfied', details: [{ message: expect.stringContaining('core 1.0.0 is installed') }] });

  const cycle = refusal(() =>
    resolveInstall(
      up('package', 'a', '1.0.0', { b: '*' }),
      [up('dependencies.0', 'b', '1.0.0', { c: '*' }), up('dependencies.1', 'c', '1.0.0', { a: '*' })],
      new Map(),
    ),
  );
  expect(cycle).toMatchObject({
    code: 'dependency_cycle',
    details: [{ path: 'dependencies.1.manifest.dependencies.a', message: expect.stringContaining('a → b → c → a') }],
  });

  const self = refusal(() => resolveInstall(up('package', 'a', '1.0.0', { a: '^1.0.0' }), [], new Map()));
  expect(self).toMatchObject({ code: 'dependency_cycle', details: [{ message: expect.stringContaining('a → a') }] });
});

test('a cycle through installed packages is found too', () => {
  const cycle = refusal(() =>
    resolveInstall(up('package', 'a', '2.0.0', { b: '^1.0.0' }), [], installed(['b', '1.0.0', { a: '^1.0.0' }], ['a', '1.0.0', { b: '^1.0.0' }])),
  );
  expect(cycle.code).toBe('dependency_cycle');
  expect(cycle.details![0].message).toContain('a → b → a');
});

test('an upload may not replace a package with a version an installed package does not accept', () => {
  const refused = refusal(() =>
    resolveInstall(
      up('package', 'app', '1.0.0', { core: '*' }),
      [up('dependencies.0', 'core', '2.0.0')],
      installed(['core', '1.0.0'], ['reports', '1.0.0', { core: '^1.0.0' }]),
    ),
  );
  expect(refused).toMatchObject({
    code: 'dependency_unsatisfied',
    details: [{ path: 'dependencies.0.manifest.version', message: expect.stringContaining('installed package reports needs core ^1.0.0') }],
  });
});

test('a package twice in the upload, or one nothing needs, is refused', () => {
  expect(
    refusal(() => resolveInstall(up('package', 'a', '1.0.0', { b: '*' }), [up('dependencies.0', 'b', '1.0.0'), up('dependencies.1', 'b', '1.1.0')], new Map())),
  ).toMatchObject({
    code: 'validation_failed',
    details: [{ path: 'dependencies.1.manifest.name' }],
  });
  expect(refusal(() => resolveInstall(up('package', 'a', '1.0.0'), [up('dependencies.0', 'extra', '1.0.0')], new Map()))).toMatchObject({
    code: 'validation_failed',
    details: [{ path: 'dependencies.0', message: expect.stringContaining('not a dependency') }],
  });
});

test('ranges are semver ranges: carets, tildes, x-ranges, hyphens, unions', () => {
  const ok = (range: string, version: string) =>
    resolveInstall(up('package', 'a', '1.0.0', { b: range }), [up('dependencies.0', 'b', version)], new Map()).length === 2;
  expect(ok('^1.2.0', '1.9.9')).toBe(true);
  expect(ok('~1.2.0', '1.2.7')).toBe(true);
  expect(ok('1.x', '1.0.0')).toBe(true);
  expect(ok('1.0.0 - 2.0.0', '2.0.0')).toBe(true);
  expect(ok('^1.0.0 || ^3.0.0', '3.1.0')).toBe(true);
  expect(() => ok('~1.2.0', '1.3.0')).toThrow(ValidationError);
  expect(() => ok('^1.0.0', '2.0.0-beta.1')).toThrow(ValidationError);
});
