import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * docs/api.md's error code table must name every code the API can answer,
 * with its status, and nothing the code no longer answers.
 *
 * Codes are passed to AppError's constructor through many hands (subclasses
 * with a default code, helpers such as `shareError(message, code)`, ternaries,
 * constants), so they are read from the syntax tree rather than by a regular
 * expression: starting from `AppError(status, code, …)`, every constructor or
 * function that forwards one of its own parameters into an emitter becomes an
 * emitter in turn, and every call of an emitter is read for the literal codes
 * and statuses it passes (a missing argument: the parameter's default; an
 * argument that cannot be read: the parameter's literal union type). Error
 * bodies written by hand (`res.status(409).json({ error: { code: 'x' } })`)
 * count too. A code this reading cannot follow fails the test with its place,
 * so a new way of passing codes is never silently skipped: give a literal, or
 * add the place to TRACED_BY_HAND below.
 */
const ROOT = path.resolve(__dirname, '../..');
const DIRS = ['src', 'activities', 'workflows', 'cube'];
const DOC = path.join(ROOT, 'docs/api.md');

/** Places whose code is no literal the reading can follow, with what they answer (each literal must stay in the file). */
const TRACED_BY_HAND: Record<string, { codes: string[]; why: string }> = {
  'src/packages/package-resolution.ts: first[1]': {
    codes: ['dependency_cycle', 'dependency_missing', 'dependency_unsatisfied'],
    why: 'the first of a table of [issues, code, message] problems',
  },
  'src/packages/package-installer.ts: err.code': { codes: [], why: 'a 400 raised elsewhere, its fields moved under the package path' },
  'src/http/error-middleware.ts: known.code': { codes: [], why: 'the body of an AppError raised elsewhere' },
};

type Value = string | number;
/** What a call passes in one slot: literals, or a parameter of the function it is in (with that parameter's fallbacks). */
type Slot = { values: Value[] } | { param: number };
interface Emitter {
  status: Slot;
  code: Slot;
}
interface Emission {
  code: string;
  status: number;
  at: string;
}
type FunctionLike = ts.FunctionLikeDeclaration;

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

function unwrap(expr: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr)) expr = expr.expression;
  return expr;
}

/** The emitter name of a function-like: a class for its constructor, else the function's or its variable's name. */
function emitterName(fn: FunctionLike): string | undefined {
  if (ts.isConstructorDeclaration(fn)) return (fn.parent as ts.ClassDeclaration).name?.text;
  if (ts.isFunctionDeclaration(fn)) return fn.name?.text;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) {
    return fn.parent.name.text;
  }
  return undefined;
}

function enclosingFunction(node: ts.Node): FunctionLike | undefined {
  for (let at = node.parent; at; at = at.parent) if (ts.isFunctionLike(at) && 'body' in at) return at as FunctionLike;
  return undefined;
}

/** Literals of a parameter's `'a' | 'b'` or `400 | 404` type. */
function literalTypes(type: ts.TypeNode | undefined): Value[] {
  const members = type && ts.isUnionTypeNode(type) ? type.types : type ? [type] : [];
  return members.flatMap((t) =>
    ts.isLiteralTypeNode(t) && (ts.isStringLiteral(t.literal) || ts.isNumericLiteral(t.literal))
      ? [ts.isNumericLiteral(t.literal) ? Number(t.literal.text) : t.literal.text]
      : [],
  );
}

function emittedErrorCodes(root = ROOT): { emissions: Emission[]; unread: string[] } {
  const files = DIRS.flatMap((dir) => sourceFiles(path.join(root, dir))).map((file) =>
    ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
  );
  const where = (node: ts.Node) => {
    const file = node.getSourceFile();
    return `${path.relative(root, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };

  // Top-level `const NAME = 'literal'`, by name (the constant a code is passed as).
  const constants = new Map<string, Value>();
  const parents = new Map<string, string>();
  for (const file of files) {
    walk(file, (node) => {
      if (ts.isClassDeclaration(node) && node.name) {
        const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
        if (base && ts.isIdentifier(base)) parents.set(node.name.text, base.text);
      }
    });
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const decl of statement.declarationList.declarations) {
        const init = decl.initializer && unwrap(decl.initializer);
        if (ts.isIdentifier(decl.name) && init && (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)))
          constants.set(decl.name.text, init.text);
      }
    }
  }

  const declaresConstructor = new Set<string>();
  const declarations = new Map<string, FunctionLike[]>();
  for (const file of files) {
    walk(file, (node) => {
      if (!ts.isFunctionLike(node) || !('body' in node)) return;
      const name = emitterName(node as FunctionLike);
      if (!name) return;
      if (ts.isConstructorDeclaration(node)) declaresConstructor.add(name);
      declarations.set(name, [...(declarations.get(name) ?? []), node as FunctionLike]);
    });
  }
  /** The constructor or function whose parameters a call to `name` fills (a class without one: its parent's). */
  function declarationOf(name: string): FunctionLike | undefined {
    for (let at: string | undefined = name; at; at = parents.get(at)) {
      if (declarations.has(at) && (declaresConstructor.has(at) || at === name)) return declarations.get(at)![0];
    }
    return undefined;
  }

  const emitters = new Map<string, Emitter>([['AppError', { status: { param: 0 }, code: { param: 1 } }]]);
  /** A class with no constructor of its own is called with its parent's. */
  function emitterOf(name: string): Emitter | undefined {
    for (let at: string | undefined = name; at; at = parents.get(at)) {
      if (emitters.has(at)) return emitters.get(at);
      if (declaresConstructor.has(at)) return undefined;
    }
    return undefined;
  }

  /** Calls of a known emitter: `new X(…)`, `X(…)`, and `super(…)` in a class whose parent is one. */
  const calls: Array<{ call: ts.CallExpression | ts.NewExpression; callee: string }> = [];
  for (const file of files) {
    walk(file, (node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) calls.push({ call: node, callee: node.expression.text });
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) calls.push({ call: node, callee: node.expression.text });
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        const fn = enclosingFunction(node);
        const own = fn && ts.isConstructorDeclaration(fn) ? (fn.parent as ts.ClassDeclaration).name?.text : undefined;
        const parent = own ? parents.get(own) : undefined;
        if (parent) calls.push({ call: node, callee: parent });
      }
    });
  }

  /** What one slot of a call passes, read where the call stands. */
  function read(call: ts.CallExpression | ts.NewExpression, slot: Slot, callee: string): Slot | { unread: string } {
    if ('values' in slot) return slot;
    const declared = declarationOf(callee)?.parameters[slot.param];
    const arg = call.arguments?.[slot.param];
    if (!arg) {
      const fallback = declared?.initializer && unwrap(declared.initializer);
      if (fallback && (ts.isStringLiteral(fallback) || ts.isNumericLiteral(fallback))) {
        return { values: [ts.isNumericLiteral(fallback) ? Number(fallback.text) : fallback.text] };
      }
      return { unread: '(missing argument without a literal default)' };
    }
    const got = readExpression(arg, call);
    if (!('unread' in got)) return got;
    const typed = literalTypes(declared?.type);
    return typed.length > 0 ? { values: typed } : got;
  }

  function readExpression(arg: ts.Expression, call: ts.Node): Slot | { unread: string } {
    const expr = unwrap(arg);
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return { values: [expr.text] };
    if (ts.isNumericLiteral(expr)) return { values: [Number(expr.text)] };
    if (ts.isConditionalExpression(expr)) {
      const [a, b] = [readExpression(expr.whenTrue, call), readExpression(expr.whenFalse, call)];
      if ('values' in a && 'values' in b) return { values: [...a.values, ...b.values] };
      return { unread: expr.getText() };
    }
    if (ts.isIdentifier(expr)) {
      const fn = enclosingFunction(call);
      const index = fn?.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === expr.text) ?? -1;
      if (index >= 0) return { param: index };
      if (constants.has(expr.text)) return { values: [constants.get(expr.text)!] };
    }
    return { unread: expr.getText() };
  }

  // Forwarding makes emitters of the functions that forward; repeat until no new one appears.
  let grew = true;
  while (grew) {
    grew = false;
    for (const { call, callee } of calls) {
      const emitter = emitterOf(callee);
      if (!emitter) continue;
      const status = read(call, emitter.status, callee);
      const code = read(call, emitter.code, callee);
      if (!('param' in status) && !('param' in code)) continue;
      const fn = enclosingFunction(call);
      const name = fn && emitterName(fn);
      if (!name || emitters.has(name)) continue;
      emitters.set(name, { status: 'unread' in status ? { values: [] } : status, code: 'unread' in code ? { values: [] } : code });
      grew = true;
    }
  }

  const emissions: Emission[] = [];
  const unread: string[] = [];
  for (const { call, callee } of calls) {
    const emitter = emitterOf(callee);
    if (!emitter) continue;
    const status = read(call, emitter.status, callee);
    let code = read(call, emitter.code, callee);
    if ('param' in code || 'param' in status) {
      // Forwarded: read at the calls of the function it stands in, which must be an emitter by one name.
      const fn = enclosingFunction(call);
      const name = fn && emitterName(fn);
      if (!name || !emitters.has(name)) unread.push(`${where(call)}: a parameter forwarded from a function with no name to call it by`);
      else if ((declarations.get(name)?.length ?? 0) > 1) unread.push(`${where(call)}: forwarded through ${name}, a name declared more than once`);
      continue;
    }
    if ('unread' in code) {
      const traced = TRACED_BY_HAND[`${path.relative(root, call.getSourceFile().fileName)}: ${code.unread}`];
      if (!traced) {
        unread.push(`${where(call)}: the code ${code.unread}`);
        continue;
      }
      code = { values: traced.codes };
    }
    const statuses = 'values' in status ? status.values : [];
    if (statuses.length === 0 && code.values.length > 0) unread.push(`${where(call)}: the status of ${code.values.join(', ')}`);
    for (const c of code.values) for (const s of statuses) emissions.push({ code: String(c), status: Number(s), at: where(call) });
  }

  // Bodies written by hand: `res.status(N).json({ error: { code, … } })`.
  for (const file of files) {
    walk(file, (node) => {
      if (!ts.isPropertyAssignment(node) || node.name.getText() !== 'error' || !ts.isObjectLiteralExpression(node.initializer)) return;
      const codeProp = node.initializer.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === 'code');
      if (!codeProp) return;
      const value = unwrap(codeProp.initializer);
      if (!ts.isStringLiteral(value)) {
        const traced = TRACED_BY_HAND[`${path.relative(root, file.fileName)}: ${value.getText()}`];
        if (!traced) unread.push(`${where(value)}: the code ${value.getText()}`);
        return;
      }
      const json = node.parent.parent;
      const sent = ts.isCallExpression(json) && ts.isPropertyAccessExpression(json.expression) ? json.expression.expression : undefined;
      const statusArg =
        sent && ts.isCallExpression(sent) && ts.isPropertyAccessExpression(sent.expression) && sent.expression.name.text === 'status'
          ? unwrap(sent.arguments[0])
          : undefined;
      if (!statusArg || !ts.isNumericLiteral(statusArg)) unread.push(`${where(value)}: the status of ${value.text}`);
      else emissions.push({ code: value.text, status: Number(statusArg.text), at: where(value) });
    });
  }
  return { emissions, unread };
}

/** `| 404 `not_found` | …` rows of the "Error codes" section, and every "NNN `code`" the whole page names. */
function documented(text: string): { rows: Array<{ status: number; code: string }>; badRows: string[]; named: Array<{ status: number; code: string }> } {
  const section = /^### Error codes\n([\s\S]*?)(?=^#{1,3} )/m.exec(text)?.[1] ?? '';
  const rows: Array<{ status: number; code: string }> = [];
  const badRows: string[] = [];
  for (const line of section.split('\n').filter((l) => l.startsWith('|') && !/^\|[-\s|]*\|$/.test(l) && !l.startsWith('| Status'))) {
    const m = /^\| (\d{3}) `([a-z][a-z0-9_]*)` \|/.exec(line);
    if (m) rows.push({ status: Number(m[1]), code: m[2] });
    else badRows.push(line);
  }
  const named = [...text.matchAll(/\b([1-5]\d\d) `([a-z][a-z0-9_]*)`/g)].map((m) => ({ status: Number(m[1]), code: m[2] }));
  return { rows, badRows, named };
}

const pair = (p: { status: number; code: string }) => `${p.status} ${p.code}`;

describe('the reading of error codes', () => {
  it('follows defaults, forwarding helpers, constants and hand-written bodies, and names what it cannot read', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'error-codes-'));
    try {
      fs.mkdirSync(path.join(root, 'src'));
      fs.writeFileSync(
        path.join(root, 'src/errors.ts'),
        `export class AppError extends Error { constructor(readonly status: number, readonly code: string, message: string) { super(message); } }
         export class ConflictError extends AppError { constructor(message: string, code = 'conflict') { super(409, code, message); } }
         export class Teapot extends AppError { constructor() { super(418, 'teapot', 'no'); } }`,
      );
      fs.writeFileSync(
        path.join(root, 'src/use.ts'),
        `const GONE = 'gone_away';
         const refused = (code: string) => new AppError(400, code, 'refused');
         export function f(flag: boolean, res: any, other: { code: string }) {
           new ConflictError('x');
           new ConflictError('x', flag ? 'first_taken' : 'second_taken');
           new AppError(410, GONE, 'gone');
           refused('bad_thing');
           res.status(502).json({ error: { code: 'upstream_down' } });
           new ConflictError('x', other.code);
         }`,
      );
      const { emissions, unread } = emittedErrorCodes(root);
      expect(new Set(emissions.map(pair))).toEqual(
        new Set(['409 conflict', '409 first_taken', '409 second_taken', '410 gone_away', '400 bad_thing', '418 teapot', '502 upstream_down']),
      );
      expect(unread).toEqual(['src/use.ts:9: the code other.code']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('error codes in docs/api.md', () => {
  const { emissions, unread } = emittedErrorCodes();
  const doc = documented(fs.readFileSync(DOC, 'utf8'));

  it('reads the code and status of every place that raises an API error', () => {
    expect(unread).toEqual([]);
    // The reading finds the codes it must: one through a subclass default, one through a forwarding helper, one written by hand.
    expect(emissions.map(pair)).toEqual(expect.arrayContaining(['400 validation_failed', '500 source_disabled', '409 run_cancelled']));
  });

  it('keeps each hand-traced code in the file it is traced to', () => {
    const gone = Object.entries(TRACED_BY_HAND).flatMap(([key, { codes }]) => {
      const text = fs.readFileSync(path.join(ROOT, key.split(': ')[0]), 'utf8');
      return codes.filter((code) => !text.includes(`'${code}'`)).map((code) => `${code} (${key})`);
    });
    expect(gone).toEqual([]);
  });

  it('documents every code the API can answer, with its status', () => {
    const rows = new Set(doc.rows.map(pair));
    const missing = new Map<string, string>();
    for (const e of emissions) if (!rows.has(pair(e)) && !missing.has(pair(e))) missing.set(pair(e), e.at);
    expect([...missing].map(([p, at]) => `${p} (raised at ${at})`)).toEqual([]);
    expect(doc.badRows).toEqual([]);
  });

  it('documents no code, or status of a code, that the API no longer answers', () => {
    const emitted = new Set(emissions.map(pair));
    const stale = [...new Set([...doc.rows, ...doc.named].map(pair))].filter((p) => !emitted.has(p));
    expect(stale).toEqual([]);
  });
});
