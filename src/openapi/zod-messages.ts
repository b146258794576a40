import type { z } from 'zod';

type Issue = z.core.$ZodRawIssue;

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);

/** What a received value is, in words: "null", "an array", "a number". */
function describe(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  return article(typeof input);
}

const TYPE_NAMES: Record<string, string> = { int: 'whole number', record: 'object', nan: 'number' };
const FORMATS: Record<string, string> = {
  uuid: 'must be a UUID',
  guid: 'must be a UUID',
  email: 'must be an e-mail address',
  url: 'must be a URL',
  datetime: 'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T09:00:00Z',
  date: 'must be a date such as 2026-01-31',
  time: 'must be a time such as 09:30:00',
  duration: 'must be an ISO 8601 duration such as PT5M',
};

function size(issue: Issue & { code: 'too_small' | 'too_big' }, bound: string): string {
  const limit = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  switch (issue.origin) {
    case 'string':
      return issue.code === 'too_small' && limit === 1 ? 'must not be empty' : `must be ${bound} ${limit} character${limit === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      return issue.code === 'too_small' && limit === 1 ? 'must not be empty' : `must have ${bound} ${limit} item${limit === 1 ? '' : 's'}`;
    default:
      return `must be ${issue.inclusive === false ? (issue.code === 'too_small' ? 'greater than' : 'less than') : bound} ${limit}`;
  }
}

/**
 * The words of every refusal a schema does not word itself: what is wrong
 * and what would be right ("must be at most 200 characters", "is required"),
 * never zod's generic "Invalid input". Installed once for the process with
 * z.config (src/openapi/zod.ts); a schema's own message always wins.
 */
export function fieldMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `must be ${article(expected)}, not ${describe(issue.input)}`;
    }
    case 'too_small':
      return size(issue, 'at least');
    case 'too_big':
      return size(issue, 'at most');
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue) return `must match the pattern ${String(issue.pattern)}`;
      return FORMATS[issue.format] ?? `must be in the ${issue.format} format`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_key':
      return 'is not an accepted name';
    case 'invalid_element':
      return 'holds an item that is not accepted';
    case 'invalid_union':
      return 'matches none of the accepted forms';
    case 'unrecognized_keys':
      return 'Unknown field';
    default:
      return undefined;
  }
}
