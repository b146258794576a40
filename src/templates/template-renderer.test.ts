import { createLiquid } from './template-engine';
import { asText, TemplateError, TemplateRenderer } from './template-renderer';

const renderer = new TemplateRenderer(createLiquid());

const scope = {
  initial: {
    name: 'Ada',
    amount: 150,
    zero: 0,
    empty: '',
    nothing: null,
    no: false,
    yes: true,
    user: { id: 7, tags: ['a', 'b'] },
    items: [{ id: 1 }, { id: 2 }],
    html: '<p>Hi <b>there</b></p>',
    text: 'hello world',
  },
  fetch: { body: { items: [{ id: 'x1' }], count: 3 } },
};

describe('TemplateRenderer.render', () => {
  test('plain strings come back untouched, including ones that look almost like templates', async () => {
    for (const text of ['hello', '', '  spaced  ', '{ a }', '} {', '}}', '%}', '$env.KEY', 'a { b } c']) {
      expect(await renderer.render(text, scope)).toBe(text);
    }
  });

  test('{{ a.b }} with and without spaces', async () => {
    expect(await renderer.render('{{ initial.name }}', scope)).toBe('Ada');
    expect(await renderer.render('{{initial.name}}', scope)).toBe('Ada');
    expect(await renderer.render('{{- initial.name -}}', scope)).toBe('Ada');
    expect(await renderer.render('{{ fetch.body.items[0].id }}', scope)).toBe('x1');
    expect(await renderer.render('{{ initial.items.first.id }}', scope)).toBe('1');
  });

  test('a single expression yielding an object or array returns the value itself', async () => {
    expect(await renderer.render('{{ initial.user }}', scope)).toEqual({ id: 7, tags: ['a', 'b'] });
    expect(await renderer.render('  {{initial.user}}\n', scope)).toEqual({ id: 7, tags: ['a', 'b'] });
    expect(await renderer.render('{{ initial.user.tags }}', scope)).toEqual(['a', 'b']);
    expect(await renderer.render('{{ initial.items }}', scope)).toEqual([{ id: 1 }, { id: 2 }]);
    // The value is the scope's own value, not a text round trip.
    expect(await renderer.render('{{ fetch.body }}', scope)).toBe(scope.fetch.body);
  });

  test('a single expression yielding a scalar renders as text', async () => {
    expect(await renderer.render('{{ initial.amount }}', scope)).toBe('150');
    expect(await renderer.render('{{ initial.zero }}', scope)).toBe('0');
    expect(await renderer.render('{{ initial.yes }}', scope)).toBe('true');
    expect(await renderer.render('{{ initial.nothing }}', scope)).toBe('');
    expect(await renderer.render('{{ initial.missing }}', scope)).toBe('');
    expect(await renderer.render('{{ initial.user.tags | size }}', scope)).toBe('2');
  });

  test('mixed text renders to a string', async () => {
    expect(await renderer.render('Hello {{ initial.name }}, you owe {{initial.amount}}.', scope)).toBe('Hello Ada, you owe 150.');
    expect(await renderer.render('id={{ initial.user.id }}', scope)).toBe('id=7');
    expect(await renderer.render('{{ initial.name }}{{ initial.amount }}', scope)).toBe('Ada150');
    expect(await renderer.render('{% if initial.amount > 100 %}big{% else %}small{% endif %}', scope)).toBe('big');
    // an object inside surrounding text does not become the value
    expect(typeof (await renderer.render('x {{ initial.user }}', scope))).toBe('string');
  });
});

describe('TemplateRenderer.renderDeep and renderStrings', () => {
  test('renderDeep walks nested objects and arrays and leaves keys alone', async () => {
    const input = {
      '{{ initial.name }}': 'key stays',
      greeting: 'Hi {{ initial.name }}',
      nested: { list: ['{{ initial.amount }}', 42, true, null, { deep: '{{ initial.user }}' }], plain: 'x' },
      count: 5,
      flag: false,
      none: null,
    };
    expect(await renderer.renderDeep(input, scope)).toEqual({
      '{{ initial.name }}': 'key stays',
      greeting: 'Hi Ada',
      nested: { list: ['150', 42, true, null, { deep: { id: 7, tags: ['a', 'b'] } }], plain: 'x' },
      count: 5,
      flag: false,
      none: null,
    });
    // the input is not modified
    expect(input.greeting).toBe('Hi {{ initial.name }}');
    expect(await renderer.renderDeep('{{ initial.items }}', scope)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await renderer.renderDeep(12, scope)).toBe(12);
  });

  test('renderStrings renders each value to text, objects as JSON', async () => {
    expect(
      await renderer.renderStrings(
        {
          'X-User': '{{ initial.user }}',
          'X-Tags': '{{ initial.user.tags }}',
          'X-N': '{{ initial.amount }}',
          'X-Plain': 'p',
          'X-None': '{{ initial.nothing }}',
        },
        scope,
      ),
    ).toEqual({ 'X-User': '{"id":7,"tags":["a","b"]}', 'X-Tags': '["a","b"]', 'X-N': '150', 'X-Plain': 'p', 'X-None': '' });
    expect(await renderer.renderStrings(undefined, scope)).toEqual({});
  });

  test('asText', () => {
    expect(asText(undefined)).toBe('');
    expect(asText(null)).toBe('');
    expect(asText({ a: 1 })).toBe('{"a":1}');
    expect(asText(3)).toBe('3');
  });
});

describe('TemplateRenderer.test (Liquid truthiness)', () => {
  const cases: Array<[string, boolean]> = [
    ['initial.amount > 100', true],
    ['initial.amount > 200', false],
    ['initial.amount == 150', true],
    ['initial.amount != 150', false],
    ['initial.amount >= 150 and initial.name == "Ada"', true],
    ['initial.amount >= 150 and initial.name == "Bob"', false],
    ['initial.amount < 0 or initial.name == "Ada"', true],
    ['initial.amount < 0 or initial.name == "Bob"', false],
    ['initial.name contains "d"', true],
    ['initial.user.tags contains "b"', true],
    ['initial.user.tags contains "z"', false],
    // Liquid truthiness: only nil and false are falsy
    ['initial.empty', true],
    ['initial.zero', true],
    ['initial.user', true],
    ['initial.user.tags', true],
    ['initial.yes', true],
    ['initial.no', false],
    ['initial.nothing', false],
    ['initial.missing', false],
    ['initial.user.missing.deeper', false],
    ['initial.empty == empty', true],
    ['initial.name == empty', false],
    ['initial.nothing == nil', true],
    ['true', true],
    ['false', false],
  ];

  test.each(cases)('%s -> %s', async (condition, expected) => {
    expect(await renderer.test(condition, scope)).toBe(expected);
    // the same as {% if %} decides
    const liquidSays = (await renderer.render(`{% if ${condition} %}T{% else %}F{% endif %}`, scope)) === 'T';
    expect(liquidSays).toBe(expected);
  });

  test('a broken condition throws a TemplateError', async () => {
    await expect(renderer.test('initial.amount | nope', scope)).rejects.toBeInstanceOf(TemplateError);
    await expect(renderer.test('(1..', scope)).rejects.toBeInstanceOf(TemplateError);
    await expect(renderer.test('', scope)).rejects.toBeInstanceOf(TemplateError);
    const err = (await renderer.test('$env.X | nope', { __env: {} }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.message).toMatch(/undefined filter: nope/);
  });
});

describe('$env and $connections roots', () => {
  const dollarScope = {
    ...scope,
    __env: { API_KEY: 'k-123', REGION: 'eu' },
    __connections: { crm: { apiKey: 'crm-key', headerName: 'X-Key' } },
  };

  test('read through the renamed roots', async () => {
    expect(await renderer.render('{{ $env.API_KEY }}', dollarScope)).toBe('k-123');
    expect(await renderer.render('{{$env.API_KEY}}', dollarScope)).toBe('k-123');
    expect(await renderer.render('key={{ $env.API_KEY }} in {{ $env.REGION }}', dollarScope)).toBe('key=k-123 in eu');
    expect(await renderer.render('{{ $connections.crm }}', dollarScope)).toEqual({ apiKey: 'crm-key', headerName: 'X-Key' });
    expect(await renderer.render('{{ $connections.crm.apiKey }}', dollarScope)).toBe('crm-key');
    expect(await renderer.test('$env.REGION == "eu"', dollarScope)).toBe(true);
    expect(await renderer.render('{% if $env.REGION == "eu" %}EU{% endif %}', dollarScope)).toBe('EU');
  });

  test('$ outside tags is plain text', async () => {
    expect(await renderer.render('cost $env {{ $env.REGION }}', dollarScope)).toBe('cost $env eu');
    expect(await renderer.render('$env.API_KEY', dollarScope)).toBe('$env.API_KEY');
  });
});

describe('filters', () => {
  test('size, strip_html, substring', async () => {
    expect(await renderer.render('{{ initial.items | size }}', scope)).toBe('2');
    expect(await renderer.render('{{ initial.text | size }}', scope)).toBe('11');
    expect(await renderer.render('{{ initial.html | strip_html }}', scope)).toBe('Hi there');
    expect(await renderer.render('{{ initial.text | substring: 6, 3 }}', scope)).toBe('wor');
    expect(await renderer.render('{{ initial.text | substring: 6 }}', scope)).toBe('world');
    expect(await renderer.render('[{{ initial.missing | substring: 0, 2 }}]', scope)).toBe('[]');
    expect(await renderer.render('{{ initial.text | substring: 0, 5 | upcase }}', scope)).toBe('HELLO');
  });
});

describe('errors', () => {
  test('an unknown filter throws a TemplateError with $ roots restored', async () => {
    const err = await renderer.render('{{ $env.KEY | shout }}', { __env: { KEY: 'v' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as Error).message).toBe('Template error: undefined filter: shout');

    const inText = await renderer.render('x {{ $connections.crm | shout }} y', {}).catch((e: unknown) => e);
    expect(inText).toBeInstanceOf(TemplateError);
    expect((inText as Error).message).toMatch(/undefined filter: shout/);

    // unknown filters are refused at parse time, even in a branch that never renders
    await expect(renderer.render('{% if false %}{{ initial.name | shout }}{% endif %}', scope)).rejects.toThrow(TemplateError);
  });

  test('bad syntax throws a TemplateError with $ roots restored', async () => {
    const unclosed = await renderer.render('hello {{ $env.KEY ', {}).catch((e: unknown) => e);
    expect(unclosed).toBeInstanceOf(TemplateError);
    expect((unclosed as Error).message).toMatch(/^Template error: output "{{ \$env\.KEY " not closed/);

    const badTag = await renderer.render('{% if $env.KEY %}x', {}).catch((e: unknown) => e);
    expect(badTag).toBeInstanceOf(TemplateError);
    expect((badTag as Error).message).toBe('Template error: tag {% if $env.KEY %} not closed');

    const forTag = await renderer.render('{% for c in $connections.crm %}', {}).catch((e: unknown) => e);
    expect(forTag).toBeInstanceOf(TemplateError);
    expect((forTag as Error).message).toContain('$connections.crm');
    expect((forTag as Error).message).not.toMatch(/__connections|__env/);

    await expect(renderer.render('{% nosuchtag %}', {})).rejects.toThrow(TemplateError);
  });

  test('errors carry only the first line of the liquidjs message', async () => {
    const err = (await renderer.render('{{ a | shout }}', {}).catch((e: unknown) => e)) as Error;
    expect(err.message).not.toContain('\n');
  });

  const HOSTILE = '{% for i in (1..100000000) %}x{% endfor %}';
  const SLOW = '{% for i in (1..9000) %}{% for j in (1..9000) %}x{% endfor %}{% endfor %}';

  test('a hostile loop is stopped by the render limits instead of hanging', async () => {
    await expect(renderer.render(HOSTILE, {})).rejects.toThrow(/memory alloc limit exceeded/);
    await expect(renderer.test('(1..100000000) contains 5', {})).rejects.toThrow(/limit exceeded/);
    await expect(renderer.render(SLOW, {})).rejects.toThrow(/template render limit exceeded/);
  }, 30_000);

  // liquidjs throws its limit errors as AssertionError, not a LiquidError: they must still become TemplateErrors (not retried).
  test('a hostile loop fails with a TemplateError (render limits)', async () => {
    const err = await renderer.render(HOSTILE, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as Error).message).toMatch(/^Template error: .*limit/);
  }, 30_000);

  test('a slow render fails with a TemplateError (render limits)', async () => {
    await expect(renderer.render(SLOW, {})).rejects.toBeInstanceOf(TemplateError);
  }, 30_000);

  test('a runaway condition fails with a TemplateError (render limits)', async () => {
    await expect(renderer.test('(1..100000000) contains 5', {})).rejects.toBeInstanceOf(TemplateError);
  }, 30_000);
});
