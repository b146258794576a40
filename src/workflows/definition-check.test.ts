import { createLiquid } from '../templates/template-engine';
import { checkDefinition } from './definition-check';
import { WorkflowDefinition } from './definition.schemas';

const liquid = createLiquid();
const check = (steps: unknown[]) => checkDefinition(liquid, WorkflowDefinition.parse({ name: 'w', steps }));
const http = (stepId: string, url: string, extra: object = {}) => ({ stepId, stepType: 'core.http', input: { url, ...extra } });
const ret = (stepId: string, body: unknown) => ({ stepId, stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body } } });

describe('checkDefinition', () => {
  test('a sound definition has no issues: initial, $env, $connections and earlier steps', () => {
    expect(
      check([
        http('fetch', 'https://api.example.test/users/{{ initial.id }}', {
          headers: { Authorization: 'Bearer {{$env.TOKEN}}' },
          connection: '{{ $connections.crm }}',
        }),
        {
          stepId: 'big',
          stepType: 'core.if',
          input: { condition: 'fetch.body.total > 100', then: [http('notify', 'https://x.test/{{ fetch.body.id }}')], else: [] },
        },
        ret('done', { total: '{{ fetch.body.total }}', notified: '{{ notify.status }}', items: ['{{ initial.a | size }}'] }),
      ]),
    ).toEqual([]);
  });

  test('a base64 body is a string, in a step and in an agent tool', () => {
    const tool = {
      type: 'http',
      name: 'upload',
      description: 'd',
      parameters: { type: 'object' },
      request: { url: 'https://x.test', bodyType: 'base64', body: [1] },
    };
    const agent = {
      stepId: 'ag',
      stepType: 'ai.agent',
      input: { provider: { provider: 'openai', connection: 'c', model: 'm' }, user_prompt: 'p', tools: [tool] },
    };
    expect(
      check([
        http('ok', 'https://x.test', { bodyType: 'base64', body: '{{ initial.pdf }}' }),
        http('bad', 'https://x.test', { bodyType: 'base64', body: { a: 1 } }),
        agent,
      ]),
    ).toEqual([
      { path: 'steps.1.input.body', message: expect.stringContaining('must be a string with bodyType base64') },
      { path: 'steps.2.input.tools.0.request.body', message: expect.stringContaining('must be a string with bodyType base64') },
    ]);
  });

  test('names the exact field of a template that does not parse', () => {
    expect(check([http('a', 'https://x.test/{{ initial.id '), ret('r', { x: ['ok', '{{ a.body | nope }}'] })])).toEqual([
      { path: 'steps.0.input.url', message: expect.stringContaining('does not parse') },
      { path: 'steps.1.input.webhookResponse.body.x.1', message: expect.stringContaining('undefined filter: nope') },
    ]);
  });

  test('a reference to a later step, to itself or to nothing is refused', () => {
    const issues = check([http('a', 'https://x.test/{{ b.body.id }}/{{ a.status }}'), http('b', 'https://x.test/{{ ghost }}')]);
    expect(issues).toEqual([
      { path: 'steps.0.input.url', message: expect.stringContaining('"b"') },
      { path: 'steps.0.input.url', message: expect.stringContaining('"a"') },
      { path: 'steps.1.input.url', message: expect.stringContaining('"ghost"') },
    ]);
  });

  test('step ids are unique across branches; a branch step can be read after the if', () => {
    const issues = check([
      { stepId: 'gate', stepType: 'core.if', input: { condition: 'initial.ok', then: [http('a', 'https://x.test')], else: [http('a', 'https://y.test')] } },
      ret('r', { from: '{{ a.status }}' }),
    ]);
    expect(issues).toEqual([{ path: 'steps.0.input.else.0.stepId', message: expect.stringContaining('steps.0.input.then.0') }]);
  });

  test('the if condition is checked as a Liquid condition and cannot break out of its tag', () => {
    expect(check([{ stepId: 'g', stepType: 'core.if', input: { condition: 'later.x == 1', then: [] } }])).toEqual([
      { path: 'steps.0.input.condition', message: expect.stringContaining('"later"') },
    ]);
    const escape = WorkflowDefinition.safeParse({
      name: 'w',
      steps: [{ stepId: 'g', stepType: 'core.if', input: { condition: 'x %}{{ $env.KEY }}{% if y', then: [] } }],
    });
    expect(escape.success).toBe(false);
    expect(escape.error?.issues[0].path).toEqual(['steps', 0, 'input', 'condition']);
  });

  describe('ai.agent', () => {
    const agent = (stepId: string, extra: Record<string, unknown> = {}) => ({
      stepId,
      stepType: 'ai.agent',
      input: { provider: { provider: 'openai', connection: 'llm', model: 'gpt-4o-mini' }, user_prompt: 'Help {{ initial.name }}', ...extra },
    });
    const httpTool = (request: Record<string, unknown>, parameters: Record<string, unknown> = { type: 'object' }) => ({
      type: 'http',
      name: 'lookup',
      description: 'Looks a customer up',
      parameters,
      request,
    });

    test('tool templates read args, $env and earlier steps; prompts may not read args', () => {
      expect(
        check([
          http('before', 'https://x.test'),
          agent('helper', {
            tools: [
              httpTool({ url: 'https://crm.test/customers/{{ args.id }}?from={{ before.status }}', headers: { Authorization: 'Bearer {{ $env.CRM }}' } }),
              { type: 'data-store', name: 'notes', description: 'Customer notes', operation: 'get', tableName: 'notes_{{ args.region }}' },
            ],
          }),
        ]),
      ).toEqual([]);
      expect(check([agent('helper', { user_prompt: 'Use {{ args.id }}' })])).toEqual([
        { path: 'steps.0.input.user_prompt', message: expect.stringContaining('"args"') },
      ]);
    });

    test('a tool template reading a later step names the tool field', () => {
      expect(check([agent('helper', { tools: [httpTool({ url: 'https://x.test/{{ after.id }}' })] }), http('after', 'https://y.test')])).toEqual([
        { path: 'steps.0.input.tools.0.request.url', message: expect.stringContaining('"after"') },
      ]);
    });

    test("an argument schema that does not compile names the tool's parameters", () => {
      expect(
        check([agent('helper', { tools: [httpTool({ url: 'https://x.test' }, { type: 'object', properties: { id: { type: 'no-such-type' } } })] })]),
      ).toEqual([{ path: 'steps.0.input.tools.0.parameters', message: expect.stringContaining('not a valid JSON Schema') }]);
    });

    test('an argument schema pattern the linear-time engine cannot run names its own field', () => {
      const parameters = { type: 'object', patternProperties: { '^(?!internal)': { type: 'string' } } };
      expect(check([agent('helper', { tools: [httpTool({ url: 'https://x.test' }, parameters)] })])).toEqual([
        { path: 'steps.0.input.tools.0.parameters.patternProperties.^(?!internal)', message: expect.stringContaining('lookahead') },
      ]);
    });

    test('the schema refuses duplicate tool names, non-object argument schemas and budgets out of range, naming the field', () => {
      const parse = (extra: Record<string, unknown>) => WorkflowDefinition.safeParse({ name: 'w', steps: [agent('helper', extra)] });
      const pathOf = (extra: Record<string, unknown>) => parse(extra).error?.issues[0].path.join('.');
      expect(pathOf({ tools: [httpTool({ url: 'https://x.test' }), httpTool({ url: 'https://y.test' })] })).toBe('steps.0.input.tools');
      expect(pathOf({ tools: [httpTool({ url: 'https://x.test' }, { type: 'string' })] })).toBe('steps.0.input.tools.0.parameters');
      expect(pathOf({ maxIterations: 0 })).toBe('steps.0.input.maxIterations');
      expect(pathOf({ timeoutSeconds: 100_000 })).toBe('steps.0.input.timeoutSeconds');
      expect(pathOf({ tools: [{ type: 'workflow', name: 'bad name', description: 'x', workflow: 'other' }] })).toBe('steps.0.input.tools.0.name');
      expect(parse({ tools: [{ type: 'workflow', name: 'escalate', description: 'Opens a ticket', workflow: 'open-ticket' }] }).success).toBe(true);
    });
  });

  describe('core.wait', () => {
    const wait = (stepId: string, input: object) => ({ stepId, stepType: 'core.wait', input });
    const parse = (steps: unknown[]) => WorkflowDefinition.safeParse({ name: 'w', steps });

    test('$resume names an event wait anywhere, before or after it; the timeout path reads what came before and is read after', () => {
      expect(
        check([
          http('notify', 'https://x.test/?link={{ $resume.approval }}&later={{ $resume.second }}'),
          wait('approval', {
            event: { name: 'ok', schema: { type: 'object' } },
            timeoutSeconds: 60,
            onTimeout: [http('remind', 'https://x.test/{{ notify.status }}')],
          }),
          wait('pause', { until: '{{ initial.at }}' }),
          { stepId: 'maybe', stepType: 'core.if', input: { condition: 'initial.x', then: [wait('second', { event: { name: 'again' } })] } },
          ret('done', { by: '{{ approval.by }}', reminded: '{{ remind.status }}' }),
        ]),
      ).toEqual([]);
    });

    test('a resume link of no event wait, a computed one, an uncompilable schema and an until reading a later step are refused by path', () => {
      expect(
        check([
          http('a', 'https://x.test/{{ $resume.pause }}'),
          http('b', 'https://x.test/{{ $resume[initial.which] }}'),
          wait('pause', { seconds: 5 }),
          wait('approval', { event: { name: 'ok', schema: { type: 'objekt' } } }),
          wait('deadline', { until: '{{ later.at }}' }),
          http('later', 'https://x.test'),
        ]),
      ).toEqual([
        { path: 'steps.0.input.url', message: 'reads $resume.pause, but no core.wait step with an event has the id "pause"' },
        { path: 'steps.1.input.url', message: 'reads $resume without naming a wait step: write $resume.<stepId>' },
        { path: 'steps.3.input.event.schema', message: expect.stringContaining('is not a valid JSON Schema') },
        { path: 'steps.4.input.until', message: expect.stringContaining('reads "later"') },
      ]);
    });

    test('a pattern the linear-time engine cannot run is refused at its own field; a catastrophic one runs there', () => {
      const schema = (pattern: string) => ({ type: 'object', properties: { code: { type: 'string', pattern } } });
      expect(
        check([
          wait('approval', { event: { name: 'ok', schema: schema('^(\\w)\\1$') } }),
          wait('second', { event: { name: 'again', schema: schema('^(a+)+$') } }),
        ]),
      ).toEqual([{ path: 'steps.0.input.event.schema.properties.code.pattern', message: expect.stringContaining('backreference') }]);
    });

    test('exactly one of seconds, until and event; timeoutSeconds and onTimeout only with an event', () => {
      const issues = (input: object) => (parse([wait('w', input)]).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
      expect(issues({})).toEqual(['steps.0.input: needs exactly one of seconds, until or event']);
      expect(issues({ seconds: 5, event: { name: 'x' } })).toEqual(['steps.0.input: needs exactly one of seconds, until or event (has seconds and event)']);
      expect(issues({ seconds: 5, timeoutSeconds: 9 })).toEqual(['steps.0.input.timeoutSeconds: applies to an event wait only; a timer ends by itself']);
      expect(issues({ event: { name: 'x' }, onTimeout: 'fail' })).toEqual(['steps.0.input.onTimeout: needs timeoutSeconds']);
      expect(issues({ seconds: 0 })[0]).toMatch(/^steps\.0\.input\.seconds: /);
      expect(issues({ event: { name: '-x' } })[0]).toMatch(/^steps\.0\.input\.event\.name: must be 1 to 64/);
      expect(issues({ event: { name: 'ok' }, timeoutSeconds: 5, onTimeout: [http('r', 'https://x.test')] })).toEqual([]);
    });
  });

  describe('core.workflow', () => {
    const child = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.workflow', input: { workflow: 'other', ...input } });

    test("the input's templates read initial and earlier steps only; a lone template yielding the object is accepted", () => {
      expect(check([http('fetch', 'https://x.test'), child('sub', { input: { id: '{{ fetch.body.id }}', who: '{{ initial.who }}' } })])).toEqual([]);
      expect(check([http('fetch', 'https://x.test'), child('sub', { input: '{{ fetch.body }}' })])).toEqual([]);
      expect(check([child('sub', { input: { id: '{{ later.id }}' } }), http('later', 'https://x.test')])).toEqual([
        { path: 'steps.0.input.input.id', message: expect.stringContaining('"later"') },
      ]);
    });

    test('an input string that is not one template is refused, naming the field', () => {
      expect(check([child('sub', { input: 'id={{ initial.id }}' })])).toEqual([
        { path: 'steps.0.input.input', message: expect.stringContaining('one template') },
      ]);
    });

    test('the schema refuses a templated or malformed workflow name, a non-boolean wait and unknown fields, naming the field', () => {
      const pathOf = (input: Record<string, unknown>) =>
        WorkflowDefinition.safeParse({ name: 'w', steps: [{ stepId: 's', stepType: 'core.workflow', input }] }).error?.issues[0].path.join('.');
      expect(pathOf({ workflow: '{{ initial.name }}' })).toBe('steps.0.input.workflow');
      expect(pathOf({ workflow: 'other', wait: 'yes' })).toBe('steps.0.input.wait');
      expect(pathOf({ workflow: 'other', input: 42 })).toBe('steps.0.input.input');
      expect(pathOf({ workflow: 'other', extra: 1 })).toBe('steps.0.input');
      expect(WorkflowDefinition.parse({ name: 'w', steps: [child('s', {})] }).steps[0].input).toEqual({ workflow: 'other', wait: true });
    });

    test('errorWorkflow is a workflow name', () => {
      const parse = (errorWorkflow: unknown) => WorkflowDefinition.safeParse({ name: 'w', steps: [http('a', 'https://x.test')], errorWorkflow });
      expect(parse('on-failure').success).toBe(true);
      expect(parse('{{ x }}').error?.issues[0].path).toEqual(['errorWorkflow']);
      expect(parse(7).error?.issues[0].path).toEqual(['errorWorkflow']);
    });
  });
});
