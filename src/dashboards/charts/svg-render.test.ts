import { chartDrawCost, chartSvg } from './svg-render';

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

describe('chartDrawCost', () => {
  it('counts data points, pie slices ten each, and twenty a series, from the option alone', () => {
    expect(
      chartDrawCost({
        series: [
          { type: 'bar', data: [1, 2, 3] },
          { type: 'line', data: [4, null] },
        ],
      }),
    ).toBe(3 + 2 + 2 * 20);
    expect(
      chartDrawCost({
        series: {
          type: 'pie',
          data: [
            { name: 'a', value: 1 },
            { name: 'b', value: 2 },
          ],
        },
      }),
    ).toBe(2 * 10 + 20);
    expect(chartDrawCost({ dataset: { source: [[1], [2], [3], [4]] }, series: [{ type: 'bar' }] })).toBe(4 + 20);
    expect(chartDrawCost({})).toBe(0);
  });
});
