import { toFieldIssues } from '../http/validation';
import { z } from './zod';

/** The details a schema's refusal of `value` gives, as `path: message`. */
function refusals(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`expected a refusal of ${JSON.stringify(value)}`);
  return toFieldIssues(result.error).map((i) => `${i.path}: ${i.message}`);
}

const Body = z.strictObject({
  name: z.string().min(1).max(5),
  tags: z.array(z.string()).min(1).max(2),
  id: z.uuid(),
  email: z.email(),
  at: z.iso.datetime({ offset: true }),
  kind: z.enum(['a', 'b']),
  exact: z.literal('x'),
  n: z.number().int().min(1).max(10),
  ratio: z.number().gt(0).lt(1),
  step: z.number().multipleOf(5),
  code: z.string().regex(/^[a-z]+$/),
  values: z.record(z.string().regex(/^[a-z]+$/, 'must be lower-case letters'), z.number()),
  nested: z.strictObject({ flag: z.boolean() }),
  either: z.union([z.strictObject({ a: z.string() }), z.strictObject({ b: z.number() })]),
});

const valid = {
  name: 'ok',
  tags: ['t'],
  id: '0199a0b6-1a2b-7c3d-8e4f-0a1b2c3d4e5f',
  email: 'a@example.com',
  at: '2026-01-31T09:00:00Z',
  kind: 'a',
  exact: 'x',
  n: 3,
  ratio: 0.5,
  step: 10,
  code: 'abc',
  values: { ok: 1 },
  nested: { flag: true },
  either: { a: 'x' },
};

test('every refusal names its field and says what would be right, in place of zod’s generic words', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: undefined }, 'name: is required'],
    [{ name: 7 }, 'name: must be a string, not a number'],
    [{ name: '' }, 'name: must not be empty'],
    [{ name: 'toolong' }, 'name: must be at most 5 characters'],
    [{ tags: [] }, 'tags: must not be empty'],
    [{ tags: ['a', 'b', 'c'] }, 'tags: must have at most 2 items'],
    [{ tags: 'a' }, 'tags: must be an array, not a string'],
    [{ id: 'nope' }, 'id: must be a UUID'],
    [{ email: 'nope' }, 'email: must be an e-mail address'],
    [{ at: 'yesterday' }, 'at: must be an ISO 8601 date-time with a time zone, such as 2026-01-31T09:00:00Z'],
    [{ kind: 'c' }, 'kind: must be one of "a", "b"'],
    [{ exact: 'y' }, 'exact: must be "x"'],
    [{ n: 2.5 }, 'n: must be a whole number, not a number'],
    [{ n: 0 }, 'n: must be at least 1'],
    [{ n: 11 }, 'n: must be at most 10'],
    [{ ratio: 1 }, 'ratio: must be less than 1'],
    [{ ratio: 0 }, 'ratio: must be greater than 0'],
    [{ step: 7 }, 'step: must be a multiple of 5'],
    [{ code: 'ABC' }, 'code: must match the pattern /^[a-z]+$/'],
    [{ values: { Bad: 1 } }, 'values.Bad: is not an accepted name: must be lower-case letters'],
    [{ values: { ok: 'x' } }, 'values.ok: must be a number, not a string'],
    [{ nested: null }, 'nested: must be an object, not null'],
    [{ nested: { flag: true, extra: 1 } }, 'nested.extra: Unknown field'],
    [{ either: { b: 'x' } }, 'either.b: must be a number, not a string'],
    [{ surplus: 1 }, 'surplus: Unknown field'],
  ];
  for (const [change, expected] of cases) {
    expect(refusals(Body, { ...valid, ...change })).toEqual([expected]);
  }
});

test("a schema's own message wins over the shared wording", () => {
  expect(refusals(z.strictObject({ a: z.string().min(3, 'needs three letters at least') }), { a: 'x' })).toEqual(['a: needs three letters at least']);
});
