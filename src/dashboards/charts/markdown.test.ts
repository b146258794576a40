import { renderMarkdown, tileMarkdown } from './markdown';

describe('renderMarkdown (text tiles, in the console and the report)', () => {
  it('renders headings, emphasis, lists and safe links', () => {
    expect(renderMarkdown('# Title\n\n**bold** and _it_\n\n- a\n- b\n\n[site](https://example.com) [mail](mailto:a@b.c) [here](/console/dashboards)')).toBe(
      '<h1>Title</h1>\n<p><strong>bold</strong> and <em>it</em></p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n' +
        '<p><a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">site</a> ' +
        '<a href="mailto:a@b.c" target="_blank" rel="noopener noreferrer nofollow">mail</a> ' +
        '<a href="/console/dashboards" target="_blank" rel="noopener noreferrer nofollow">here</a></p>\n',
    );
  });

  it.each([
    ['a script element', '<script>alert(1)</script>'],
    ['an event handler', '<img src=x onerror=alert(1)>'],
    ['a raw javascript: anchor', '<a href="javascript:alert(1)">x</a>'],
    ['a javascript: link', '[x](javascript:alert(1))'],
    ['a javascript: link hidden by case and a tab', '[x](JaVa\tScRiPt:alert(1))'],
    ['a javascript: autolink', '<javascript:alert(1)>'],
    ['a data: link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['a vbscript: link', '[x](vbscript:msgbox(1))'],
  ])('leaves %s inert', (_what, markdown) => {
    const html = renderMarkdown(markdown);
    expect(html).not.toMatch(/<(script|img|iframe)/i);
    expect(html).not.toMatch(/href="(javascript|data|vbscript):/i);
    expect(html).not.toMatch(/<[a-z]+[^>]*\son\w+=/i);
  });

  it('does not fetch images: an image is at most a link', () => {
    expect(renderMarkdown('![pixel](https://tracker.example/p.png)')).not.toContain('<img');
  });

  it('reads the Markdown of a displayConfig, and nothing from anything else', () => {
    expect(tileMarkdown({ markdown: '# x' })).toBe('# x');
    expect(tileMarkdown({ markdown: 3 })).toBe('');
    expect(tileMarkdown(null)).toBe('');
    expect(renderMarkdown(undefined)).toBe('');
  });
});
