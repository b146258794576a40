import { chartSvg } from './svg-render';

describe('chartSvg', () => {
  it('draws an option to an SVG document of the given size', () => {
    const svg = chartSvg(
      { animation: false, xAxis: { type: 'category', data: ['Mon', 'Tue'] }, yAxis: { type: 'value' }, series: [{ type: 'bar', data: [3, 5] }] },
      { width: 400, height: 200 },
    );
    expect(svg).toMatch(/^<svg width="400" height="200"/);
    expect(svg).toContain('>Mon</text>');
  });
});
