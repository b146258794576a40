import { satisfies } from 'semver';
import { type FieldIssue, ValidationError } from '../errors/errors';
import type { InstalledAs } from './package.entity';

/**
 * Which packages an upload installs, and in what order: the uploaded package
 * and every package it needs, dependencies first. Pure: the caller gives the
 * upload and what the organization has installed.
 */

/** What resolution reads of a package: its name, version and dependencies (name → semver range). */
export interface PackageNode {
  name: string;
  version: string;
  dependencies: Record<string, string>;
}

/** A package of the upload, and where it is in the body (`package`, `dependencies.2`). */
export interface Uploaded<P> extends PackageNode {
  at: string;
  content: P;
}

export interface InstalledNode extends PackageNode {
  installedAs: InstalledAs;
}

export interface PlannedInstall<P> {
  uploaded: Uploaded<P>;
  /** The version installed now, if any. */
  previous: InstalledNode | undefined;
  /** `direct` for the uploaded package (and any package installed directly before); `dependency` for the others. */
  installAs: InstalledAs;
}

const depPath = (p: { at: string }, dep: string) => `${p.at}.manifest.dependencies.${dep}`;

/**
 * The install order for `main` with `supplied` dependencies, given the
 * organization's `installed` packages (by name). Every dependency must be
 * supplied in the upload, or installed, at a version satisfying its range; a
 * supplied package wins over an installed one (an upgrade). 400, naming each
 * problem at its field, when the dependencies form a cycle
 * (`dependency_cycle`), one is neither supplied nor installed
 * (`dependency_missing`), a version does not satisfy a range, including an
 * installed package's range over a package this upload would replace
 * (`dependency_unsatisfied`), or a supplied package is needed by nothing
 * (`validation_failed`). The first kind found names the code; the details list all.
 */
export function resolveInstall<P>(main: Uploaded<P>, supplied: Array<Uploaded<P>>, installed: ReadonlyMap<string, InstalledNode>): Array<PlannedInstall<P>> {
  const byName = new Map<string, Uploaded<P>>();
  const duplicates: FieldIssue[] = [];
  for (const p of [main, ...supplied]) {
    if (byName.has(p.name))
      duplicates.push({ path: `${p.at}.manifest.name`, message: `"${p.name}" is in the upload twice (also at ${byName.get(p.name)!.at})` });
    else byName.set(p.name, p);
  }
  if (duplicates.length > 0) throw new ValidationError(`A package may be in the upload once: ${duplicates[0].message}`, duplicates);

  const cycles: FieldIssue[] = [];
  const missing: FieldIssue[] = [];
  const unsatisfied: FieldIssue[] = [];
  const order: Array<Uploaded<P>> = [];
  const state = new Map<string, 'visiting' | 'done'>();

  // Depth first over the upload and the installed packages: an edge back to a package on the current path is a cycle.
  const visit = (name: string, chain: string[]) => {
    state.set(name, 'visiting');
    const up = byName.get(name);
    const node: PackageNode = up ?? installed.get(name)!;
    for (const [dep, range] of Object.entries(node.dependencies)) {
      const target = byName.get(dep) ?? installed.get(dep);
      if (state.get(dep) === 'visiting') {
        const loop = [...chain.slice(chain.indexOf(dep)), name, dep];
        if (up) cycles.push({ path: depPath(up, dep), message: `the dependencies form a cycle: ${loop.join(' → ')}` });
        else cycles.push({ path: byName.get(dep)?.at ?? 'package', message: `the dependencies form a cycle through installed packages: ${loop.join(' → ')}` });
        continue;
      }
      // Edges of installed packages are checked below, against what the upload replaces; a missing one is not this upload's doing.
      if (up) {
        if (!target) {
          missing.push({
            path: depPath(up, dep),
            message: `${name} needs ${dep} ${range}, which is neither in the upload nor installed: add it to dependencies`,
          });
          continue;
        }
        if (!satisfies(target.version, range)) {
          const where = byName.has(dep)
            ? `the upload has ${dep} ${target.version}`
            : `${dep} ${target.version} is installed: add a version that satisfies it to dependencies`;
          unsatisfied.push({ path: depPath(up, dep), message: `${name} needs ${dep} ${range}; ${where}` });
          continue;
        }
      }
      if (target && state.get(dep) !== 'done') visit(dep, [...chain, name]);
    }
    state.set(name, 'done');
    if (up) order.push(up);
  };
  visit(main.name, []);

  // An installed package the upload leaves alone must still be satisfied by what replaces its dependencies.
  for (const [name, node] of installed) {
    if (byName.has(name)) continue;
    for (const [dep, range] of Object.entries(node.dependencies)) {
      const replacement = byName.get(dep);
      if (replacement && !satisfies(replacement.version, range)) {
        unsatisfied.push({
          path: `${replacement.at}.manifest.version`,
          message: `installed package ${name} needs ${dep} ${range}; this upload would replace it with ${replacement.version}`,
        });
      }
    }
  }

  const problems: Array<[FieldIssue[], string, string]> = [
    [cycles, 'dependency_cycle', 'The dependencies form a cycle'],
    [missing, 'dependency_missing', 'Dependencies are missing'],
    [unsatisfied, 'dependency_unsatisfied', 'Dependency versions do not satisfy their ranges'],
  ];
  const first = problems.find(([issues]) => issues.length > 0);
  if (first) {
    const all = problems.flatMap(([issues]) => issues);
    throw new ValidationError(`${first[2]}: ${first[0].map((i) => i.message).join('; ')}`, all, first[1]);
  }

  const unused = supplied.filter((p) => state.get(p.name) !== 'done');
  if (unused.length > 0) {
    throw new ValidationError(
      `The upload holds packages nothing in it needs: ${unused.map((p) => p.name).join(', ')}`,
      unused.map((p) => ({ path: p.at, message: `${p.name} is not a dependency of ${main.name} or of its dependencies` })),
    );
  }

  return order.map((uploaded) => {
    const previous = installed.get(uploaded.name);
    return { uploaded, previous, installAs: uploaded === main || previous?.installedAs === 'direct' ? 'direct' : 'dependency' };
  });
}
