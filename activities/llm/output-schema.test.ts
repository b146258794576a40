import { outputSchemaToJsonSchema } from './output-schema';

describe('outputSchemaToJsonSchema', () => {
  test('every type becomes its JSON Schema, keeping the description; all fields required, nothing else allowed', () => {
    const schema = outputSchemaToJsonSchema({
      title: 'string: A short title',
      tags: 'string[]: Topics mentioned',
      score: 'number: Confidence from 0 to 1',
      amounts: 'number[]: Every amount in the text',
      count: 'integer: How many people',
      urgent: 'boolean: Whether it needs an answer today',
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', description: 'A short title' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Topics mentioned' },
        score: { type: 'number', description: 'Confidence from 0 to 1' },
        amounts: { type: 'array', items: { type: 'number' }, description: 'Every amount in the text' },
        count: { type: 'integer', description: 'How many people' },
        urgent: { type: 'boolean', description: 'Whether it needs an answer today' },
      },
      required: ['title', 'tags', 'score', 'amounts', 'count', 'urgent'],
      additionalProperties: false,
    });
  });

  test('the space after the colon is optional, multi-line descriptions are kept, an empty one is left out', () => {
    const schema = outputSchemaToJsonSchema({ a: 'string:no space', b: 'integer: line one\nline two', c: 'boolean:' });
    expect(schema.properties).toEqual({
      a: { type: 'string', description: 'no space' },
      b: { type: 'integer', description: 'line one\nline two' },
      c: { type: 'boolean' },
    });
  });

  test('malformed values and empty schemas are refused, naming the field but not the value', () => {
    expect(() => outputSchemaToJsonSchema({ when: 'date: secret-ish text' })).toThrow(/field "when"/);
    expect(() => outputSchemaToJsonSchema({ when: 'date: secret-ish text' })).not.toThrow(/secret-ish/);
    expect(() => outputSchemaToJsonSchema({ n: 'Number: upper case' })).toThrow(/field "n"/);
    expect(() => outputSchemaToJsonSchema({})).toThrow(/at least one field/);
    expect(() => outputSchemaToJsonSchema(JSON.parse('{"__proto__": "string: x"}'))).toThrow(/__proto__/);
  });
});
