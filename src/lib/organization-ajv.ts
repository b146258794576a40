import Ajv, { type CodeOptions, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldIssue } from '../errors/errors';
import { compileLinear, patternProblem, UnsupportedPattern, type LinearRegExp } from './linear-regexp';

/**
 * The pattern work one check may do, in characters tested times the
 * pattern's program size. RE2's time is linear, but re2js's constant is not
 * small: about 100 ns per step where its DFA cannot cache, so a 128 KiB
 * string against a 1000-instruction pattern would take seconds. Within this
 * budget the costliest shape found took 220 ms (`[ab]*a[ab]{200}c` on random
 * a/b text, on the 2-core machine). A whole 128 KiB payload fits it for
 * patterns of up to 15 instructions (`^[a-z0-9._-]+$` is 6), a 1 KiB string
 * for up to 1950.
 */
export const PATTERN_BUDGET = 2_000_000;

/** A compiled organization schema: called like ajv's validate function, with its `errors` after a failed call. */
export interface SchemaCheck {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** What the patterns of one compiled schema have left to spend in the current check. */
interface Budget {
  left: number;
  spent: boolean;
}

/**
 * Compiles a JSON Schema an organization wrote (an event wait's payload
 * schema, an agent tool's argument schema) into a check of the data its
 * callers send, whose time is bounded by the data's size, whatever the
 * schema says:
 * - `pattern` and `patternProperties` run on RE2 (linear-regexp.ts); a
 *   pattern it cannot run makes the compile throw. Each check spends at most
 *   PATTERN_BUDGET on patterns; past it the data is refused (an error at the
 *   root saying so), never let through;
 * - `uniqueItems` compares items by a canonical key, in one pass, not ajv's
 *   pairwise deep comparison (quadratic: seconds for a 128 KiB array of
 *   small objects).
 * `formats`: ajv-formats' formats (fixed expressions of the library, not the
 * organization's). Each call builds its own Ajv: a shared instance keeps
 * every schema it compiled.
 */
export function compileOrganizationSchema(schema: object, options: { allErrors?: boolean; formats?: boolean } = {}): SchemaCheck {
  const budget: Budget = { left: PATTERN_BUDGET, spent: false };
  // `code` is what ajv's standalone code would call; nothing here generates standalone code.
  const regExp: NonNullable<CodeOptions['regExp']> = Object.assign((pattern: string) => budgeted(linear(pattern), budget), { code: 'compileLinear' });
  const ajv = new Ajv({ strict: false, allErrors: options.allErrors ?? false, unicodeRegExp: true, code: { regExp } });
  if (options.formats) addFormats(ajv);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
  const validate = ajv.compile(schema);
  const check: SchemaCheck = (data) => {
    budget.left = PATTERN_BUDGET;
    budget.spent = false;
    const valid = validate(data);
    check.errors = validate.errors;
    if (!budget.spent) return valid;
    check.errors = [...(validate.errors ?? []), budgetError()];
    return false;
  };
  return check;
}

/** A check that refuses everything, saying why: for a schema saved before a rule it breaks (a pattern RE2 cannot run). */
export function refusingCheck(reason: string): SchemaCheck {
  const check: SchemaCheck = () => {
    check.errors = [{ keyword: 'schema', instancePath: '', schemaPath: '#', params: {}, message: reason }];
    return false;
  };
  return check;
}

/**
 * What is wrong with an organization's JSON Schema found at `path` of a
 * request: each pattern RE2 cannot run, at its own field
 * (`….properties.code.pattern`, `….patternProperties.<pattern>`), else why it
 * does not compile. Empty when the schema is fine.
 */
export function schemaIssues(schema: Record<string, unknown>, path: string): FieldIssue[] {
  const issues = patternIssues(schema, path);
  if (issues.length) return issues;
  try {
    // With the formats, which event waits use: a known format compiles quietly.
    compileOrganizationSchema(schema, { formats: true });
    return [];
  } catch (err) {
    return [{ path, message: `is not a valid JSON Schema: ${(err as Error).message}` }];
  }
}

/** The pattern compiled for RE2; when it cannot be, an error naming it (ajv's own would not). */
function linear(pattern: string): LinearRegExp {
  try {
    return compileLinear(pattern);
  } catch (err) {
    if (err instanceof UnsupportedPattern) throw new Error(`its pattern ${JSON.stringify(pattern)} ${err.message}`, { cause: err });
    throw err;
  }
}

/** A pattern whose tests draw on the check's budget; once it is spent, every test fails. */
function budgeted(re: LinearRegExp, budget: Budget): LinearRegExp {
  return {
    size: re.size,
    toString: () => re.toString(),
    test(input) {
      const cost = (input.length + 1) * re.size;
      if (budget.spent || cost > budget.left) {
        budget.spent = true;
        return false;
      }
      budget.left -= cost;
      return re.test(input);
    },
  };
}

const budgetError = (): ErrorObject => ({
  keyword: 'pattern',
  instancePath: '',
  schemaPath: '#',
  params: { budget: PATTERN_BUDGET },
  message: `is too large to check against the schema's patterns (at most ${PATTERN_BUDGET} characters × pattern instructions per check)`,
});

/** Keywords whose value is a schema, or an array of schemas. */
const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);
/** Keywords whose value maps names (or patterns) to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);

/** The patterns of a schema RE2 cannot run, walking only keywords that hold schemas (a `pattern` inside `default` or `enum` is data). */
function patternIssues(schema: unknown, path: string, issues: FieldIssue[] = []): FieldIssue[] {
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => patternIssues(item, `${path}.${i}`, issues));
    return issues;
  }
  if (!isObject(schema)) return issues;
  const refuse = (pattern: string, at: string) => {
    const problem = patternProblem(pattern);
    if (problem) issues.push({ path: at, message: `is a pattern the service cannot run: it ${problem}` });
  };
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && typeof value === 'string') refuse(value, `${path}.pattern`);
    else if (SUBSCHEMA.has(key)) patternIssues(value, `${path}.${key}`, issues);
    else if (SCHEMA_MAP.has(key) && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) {
        if (key === 'patternProperties') refuse(name, `${path}.${key}.${name}`);
        patternIssues(sub, `${path}.${key}.${name}`, issues);
      }
    }
  }
  return issues;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `uniqueItems` in one pass: items are equal, as JSON Schema says, when their canonical JSON is. */
function uniqueItems(unique: boolean, data: unknown[]): boolean {
  const self = uniqueItems as { errors?: Partial<ErrorObject>[] };
  self.errors = undefined;
  if (!unique) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      self.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
}

/** JSON with object keys in order, so equal values (in JSON Schema's sense) have equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
