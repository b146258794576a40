import { widgetView } from './charts';
import { renderMarkdown } from './charts/markdown';
import { reportHtml, type ReportTile } from './report-html';

const header = { title: 'Sales', timeZone: 'UTC', generatedAt: '2026-03-10T00:00:00Z', filters: [] };

/** A bar chart tile of `n` rows at grid row `y`. */
const barTile = (id: string, n: number, y: number): ReportTile => {
  const widget = { title: id, chartType: 'bar', queryConfig: { measures: ['s.amount'], dimensions: ['s.day'] } };
  const data = Array.from({ length: n }, (_, i) => ({ 's.day': `d${i}`, 's.amount': i }));
  return { item: { widgetId: id, x: 0, y, w: 6, h: 4 }, widget, view: widgetView(widget, { data }, { timeZone: 'UTC' }) };
};

describe('reportHtml', () => {
  it('prints a text tile as its rendered Markdown, where a <script> and a javascript: link are inert text', async () => {
    const markdown = '## Notes\n\n<script>alert(1)</script> [bad](javascript:alert(1)) <a href="javascript:alert(2)">raw</a> [good](https://example.com)';
    const text: ReportTile = {
      item: { widgetId: 't', x: 0, y: 0, w: 12, h: 2 },
      widget: { title: 'About' },
      view: { kind: 'text', html: renderMarkdown(markdown) },
    };
    const html = await reportHtml(header, [text], () => '');
    expect(html).toContain('<h3>About</h3><div><h2>Notes</h2>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('[bad](javascript:alert(1))');
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">good</a>');
  });

  it('refuses a chart over MAX_CHART_POINTS from its option, without drawing it', async () => {
    const draw = jest.fn(() => '<svg width="1" height="1"></svg>');
    const html = await reportHtml(header, [barTile('small', 10, 0), barTile('huge', 5_001, 4)], draw);
    expect(draw).toHaveBeenCalledTimes(1);
    expect(html).toContain('Too many points to print this chart');
  });

  it('still refuses a drawn chart over MAX_CHART_ELEMENTS', async () => {
    const html = await reportHtml(header, [barTile('odd', 10, 0)], () => `<svg>${'<g></g>'.repeat(15_001)}</svg>`);
    expect(html).toContain('Too many points to print this chart');
  });

  it('lets the event loop turn between two charts', async () => {
    const events: string[] = [];
    let ticking = true;
    const tick = () =>
      setImmediate(() => {
        events.push('turn');
        if (ticking) tick();
      });
    tick();
    await reportHtml(header, [barTile('a', 3, 0), barTile('b', 3, 4)], () => {
      events.push('draw');
      return '<svg width="1" height="1"></svg>';
    });
    ticking = false;
    const draws = events.flatMap((e, i) => (e === 'draw' ? [i] : []));
    expect(draws).toHaveLength(2);
    expect(events.slice(draws[0], draws[1])).toContain('turn');
  });
});
