import { analyzeTemplate } from './template-analysis';
import { createLiquid, fromLiquid, toLiquid } from './template-engine';

const liquid = createLiquid();

describe('templates', () => {
  test('$env and $connections roots are renamed only inside tags, with or without spaces', () => {
    expect(toLiquid('cost: $env {{ $env.API_KEY }} {{$connections.slack}} {%- if $env.X -%}y{%- endif -%}')).toBe(
      'cost: $env {{ __env.API_KEY }} {{__connections.slack}} {%- if __env.X -%}y{%- endif -%}',
    );
    expect(fromLiquid('undefined variable: __env.KEY')).toBe('undefined variable: $env.KEY');
  });

  test('analysis lists every reference as segments, roots as written', () => {
    const { error, references } = analyzeTemplate(
      liquid,
      '{{ initial.user.name | upcase }} {{ fetch.body.items[0].id }} {{$env.API_KEY}} {% if a.b > 1 %}{{ c }}{% endif %}',
    );
    expect(error).toBeUndefined();
    expect(references).toEqual(
      expect.arrayContaining([['initial', 'user', 'name'], ['fetch', 'body', 'items', 0, 'id'], ['$env', 'API_KEY'], ['a', 'b'], ['c']]),
    );
  });

  test('parse errors name the problem, unknown filters included', () => {
    expect(analyzeTemplate(liquid, '{{ initial.x ').error).toMatch(/not closed/);
    expect(analyzeTemplate(liquid, '{{ initial.x | shout }}').error).toMatch(/undefined filter: shout/);
    expect(analyzeTemplate(liquid, '{{ $env.KEY | nope }}').error).not.toMatch(/__env/);
  });

  test('the filters of the contract: size, strip_html, substring', async () => {
    const ctx = { s: 'hello world', html: '<p>Hi <b>there</b></p>', list: [1, 2, 3] };
    expect(await liquid.parseAndRender('{{ list | size }} {{ s | size }}', ctx)).toBe('3 11');
    expect(await liquid.parseAndRender('{{ html | strip_html }}', ctx)).toBe('Hi there');
    expect(await liquid.parseAndRender('{{ s | substring: 6, 3 }}|{{ s | substring: 6 }}|{{ nothing | substring: 0, 2 }}', ctx)).toBe('wor|world|');
  });

  test('a runaway render is stopped by the render limit', async () => {
    const loop = '{% for i in (1..100000000) %}{{ i }}{% endfor %}';
    await expect(liquid.parseAndRender(loop, {})).rejects.toThrow(/limit/i);
  });
});

describe('toLiquid is one linear pass', () => {
  /** The regular expression it replaced: correct, but quadratic on openers without closers. */
  const TAG = /({{-?|{%-?)([\s\S]*?)(-?}}|-?%})/g;
  const reference = (t: string) =>
    t.replace(
      TAG,
      (_m, open: string, body: string, close: string) =>
        open + body.replace(/\$(env|connections)\b/g, (r) => (r === '$env' ? '__env' : '__connections')) + close,
    );

  test('rewrites exactly what the regular expression did, on random mixes of openers, closers and roots', () => {
    const pieces = ['{{', '}}', '{%', '%}', '{', '}', '%', '-', ' ', 'x', '$env', '$connections', '$envy', '.K', '\n'];
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      expect(toLiquid(text)).toBe(reference(text));
    }
  });

  test('a megabyte of openers without a closer, and of alternating openers, come back unchanged', () => {
    for (const hostile of ['{{'.repeat(500_000), '{%'.repeat(500_000), '{{$env'.repeat(200_000)]) expect(toLiquid(hostile)).toBe(hostile);
    const closedLate = '{{ $env.A '.repeat(100_000) + '}}';
    expect(toLiquid(closedLate)).toBe(reference(closedLate));
  });
});
