import type { AgentToolDefinition } from '../../src/workflows/definition.schemas';
import { argumentProblems, argumentSchema } from './tool-arguments';

const http: AgentToolDefinition = {
  type: 'http',
  name: 'lookup',
  description: 'Looks a customer up',
  parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^c-' }, limit: { type: 'integer' } }, required: ['id'] },
  request: { url: 'https://crm.example/{{ args.id }}', method: 'GET' },
};
const store = (operation: 'get' | 'set'): AgentToolDefinition => ({
  type: 'data-store',
  name: `notes_${operation}`,
  description: 'Notes',
  operation,
  tableName: 'notes',
});
const workflow: AgentToolDefinition = { type: 'workflow', name: 'enrich', description: 'Enriches a lead', workflow: 'enrich-lead' };

describe('argumentProblems', () => {
  test('arguments matching the schema pass', () => {
    expect(argumentProblems(http, { id: 'c-1', limit: 3 })).toBeUndefined();
    expect(argumentProblems(store('get'), { key: 'k' })).toBeUndefined();
    expect(argumentProblems(store('set'), { key: 'k', value: { a: 1 } })).toBeUndefined();
  });

  test('every problem is named with its path, in words the model can act on', () => {
    const problems = argumentProblems(http, { id: 'x-1', limit: 'three' });
    expect(problems).toMatch(/^The arguments do not match the tool's schema: /);
    expect(problems).toContain('/id must match pattern "^c-"');
    expect(problems).toContain('/limit must be integer');
    expect(argumentProblems(http, {})).toContain("(arguments) must have required property 'id'");
  });

  test("a tool's patterns run on the linear-time engine: a catastrophic one answers at once", () => {
    const tool: AgentToolDefinition = { ...http, parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } } } };
    const started = performance.now();
    // 30 a's: a backtracking engine takes seconds (it doubles with each a), so this fails there rather than hang.
    expect(argumentProblems(tool, { id: `${'a'.repeat(30)}!` })).toContain('/id must match pattern "^(a+)+$"');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('a pattern saved before the linear-time engine (a backreference) fails the step, not the model', () => {
    const tool: AgentToolDefinition = { ...http, parameters: { type: 'object', properties: { id: { type: 'string', pattern: '^(a)\\1$' } } } };
    expect(() => argumentProblems(tool, { id: 'aa' })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_definition' }));
  });

  test('data store tools take fixed arguments: a non-empty key, and for set an object value', () => {
    expect(argumentProblems(store('get'), { key: '' })).toContain('/key must NOT have fewer than 1 characters');
    expect(argumentProblems(store('get'), { key: 'k', extra: 1 })).toContain('must NOT have additional properties');
    expect(argumentProblems(store('set'), { key: 'k', value: 'text' })).toContain('/value must be object');
    expect(argumentProblems(store('set'), { key: 'k', value: [1] })).toContain('/value must be object');
    expect(argumentProblems(store('set'), { key: 'k' })).toContain("must have required property 'value'");
  });

  test('a workflow tool without parameters takes any object, and only an object', () => {
    expect(argumentSchema(workflow)).toEqual({ type: 'object' });
    expect(argumentProblems(workflow, { anything: [1, 2] })).toBeUndefined();
    expect(argumentProblems(workflow, 'text')).toContain('(arguments) must be object');
    expect(argumentProblems(workflow, null)).toContain('(arguments) must be object');
  });

  test('at most five problems are listed', () => {
    const wide: AgentToolDefinition = {
      ...workflow,
      parameters: { type: 'object', properties: Object.fromEntries('abcdefgh'.split('').map((k) => [k, { type: 'number' }])) },
    };
    const problems = argumentProblems(wide, Object.fromEntries('abcdefgh'.split('').map((k) => [k, 'x'])))!;
    expect(problems.split('; ')).toHaveLength(5);
  });
});
