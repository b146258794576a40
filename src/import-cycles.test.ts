import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * No import circle among the service's own modules. A circle of imports that
 * run makes load order decide which module sees the other's exports as
 * undefined; a circle of type imports still ties together layers that should
 * not know each other (the definition schemas and the run types did). So
 * every import counts, `import type` included.
 */
const ROOT = path.resolve(__dirname, '..');
const DIRS = ['src', 'activities', 'workflows', 'cube', 'migrations'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative module specifiers a file imports or re-exports, types included. */
export function relativeImports(text: string): string[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  return file.statements
    .map((node) => (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) ? node.moduleSpecifier : undefined))
    .filter((spec): spec is ts.StringLiteral => spec !== undefined && ts.isStringLiteral(spec) && spec.text.startsWith('.'))
    .map((spec) => spec.text);
}

function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

/** Each circle once, as the list of files from its first member back to it. */
export function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('imports', () => {
  it('form no circle among the service modules', () => {
    const graph = new Map<string, string[]>();
    for (const file of DIRS.flatMap((d) => sourceFiles(path.join(ROOT, d)))) {
      const targets = relativeImports(fs.readFileSync(file, 'utf8'))
        .map((s) => resolve(file, s))
        .filter((t): t is string => t !== undefined);
      graph.set(file, targets);
    }
    expect(graph.size).toBeGreaterThan(200);
    expect(circles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' → '))).toEqual([]);
  });

  it('counts every relative import and re-export, types included, and finds a circle when there is one', () => {
    const text = [
      "import type { A } from './a';",
      "import { d } from '../d';",
      "import './side-effect';",
      "export type { F } from './f';",
      "export { g } from './g';",
      "import fs from 'node:fs';",
      "const later = './not-an-import';",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['./a', '../d', './side-effect', './f', './g']);
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });
});
