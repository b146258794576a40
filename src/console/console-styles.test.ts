import fs from 'node:fs';
import path from 'node:path';

// The console's stylesheets share one convention: shared classes are defined once, in console/src/styles.css or
// console/src/ui/*.css (loaded on every page); an area's stylesheet (console/src/pages/<area>/*.css) holds only rules
// scoped under its root element `.area-<area>`, so an area's chunk cannot restyle another area once it loads.
const consoleSrc = path.resolve(__dirname, '../../console/src');

interface Rule {
  file: string;
  prelude: string;
  selectors: string[];
  /** The selectors alone, without the at-rules around them (`@media …`): what the area scope is checked on. */
  bareSelectors: string[];
}

function filesUnder(dir: string, suffix: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => path.relative(consoleSrc, path.join(e.parentPath, e.name)));
}

/** The style rules of one stylesheet, with their selectors (an at-rule's rules carry its prelude in front, so `@media` variants stay apart). */
function parseRules(file: string, css: string): Rule[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const rules: Rule[] = [];
  const context: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') {
      const prelude = text.slice(start, i).trim().replace(/\s+/g, ' ');
      if (prelude.startsWith('@')) context.push(prelude);
      else {
        if (!context.some((c) => c.startsWith('@keyframes'))) {
          const inside = context.join(' ');
          const bareSelectors = prelude.split(',').map((s) => s.trim());
          const selectors = bareSelectors.map((s) => `${inside} ${s}`.trim());
          rules.push({ file, prelude: `${inside} ${prelude}`.trim(), selectors, bareSelectors });
        }
        // Skip the declaration block.
        i = text.indexOf('}', i);
      }
      start = i + 1;
    } else if (text[i] === '}') {
      context.pop();
      start = i + 1;
    }
  }
  return rules;
}

const stylesheets = filesUnder(consoleSrc, '.css').sort();
const rules = stylesheets.flatMap((file) => parseRules(file, fs.readFileSync(path.join(consoleSrc, file), 'utf8')));
const areaOf = (file: string) => /^pages\/([^/]+)\//.exec(file)?.[1];
/** A selector without its area scope: `.area-data .help` and `.help` name the same class. */
const unscoped = (selector: string) => selector.replace(/^(@[^.]*\s)?\.area-[\w-]+ /, '$1');

/** Shared classes an area refines for its own pages only (`.area-dashboards .form-row`): scoped, so no leak. */
const SCOPED_REFINEMENTS = ['.form-row'];

describe("the console's stylesheets", () => {
  it('are found', () => {
    expect(stylesheets).toEqual(expect.arrayContaining(['styles.css', 'ui/panels.css', 'pages/runs/runs.css']));
  });

  it('define each selector in one file only', () => {
    const files = new Map<string, Set<string>>();
    for (const rule of rules) {
      for (const selector of rule.selectors) {
        const key = unscoped(selector);
        files.set(key, (files.get(key) ?? new Set()).add(rule.file));
      }
    }
    const shared = [...files].filter(([, where]) => where.size > 1).map(([selector, where]) => `${selector}: ${[...where].join(', ')}`);
    const leaks = shared.filter((line) => !SCOPED_REFINEMENTS.some((selector) => line.startsWith(`${selector}: `)));
    expect(leaks).toEqual([]);
  });

  it('do not repeat a rule within a file', () => {
    const seen = new Set<string>();
    const repeated: string[] = [];
    for (const rule of rules) {
      const key = `${rule.file}: ${rule.prelude}`;
      if (seen.has(key)) repeated.push(key);
      seen.add(key);
    }
    expect(repeated).toEqual([]);
  });

  it("scope every rule of an area's stylesheet under the area's root", () => {
    const unscopedRules = rules
      .filter((rule) => areaOf(rule.file))
      .flatMap((rule) => rule.bareSelectors.filter((s) => !s.startsWith(`.area-${areaOf(rule.file)} `)).map((s) => `${rule.file}: ${s}`));
    expect(unscopedRules).toEqual([]);
  });

  it("import no other area's stylesheet", () => {
    const crossings = filesUnder(path.join(consoleSrc, 'pages'), '.tsx').flatMap((file) => {
      const source = fs.readFileSync(path.join(consoleSrc, file), 'utf8');
      return [...source.matchAll(/import\s+'([^']+\.css)'/g)]
        .map((m) => path.relative(consoleSrc, path.resolve(consoleSrc, path.dirname(file), m[1])))
        .filter((css) => areaOf(css) && areaOf(css) !== areaOf(file))
        .map((css) => `${file} imports ${css}`);
    });
    expect(crossings).toEqual([]);
  });
});
