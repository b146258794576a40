import { bottomOf, type LayoutItem, layoutIssues, MAX_GRID_ROWS, MAX_ITEM_HEIGHT, placeAtBottom, withoutWidget } from './layout-rules';

const titles = new Map([
  ['a', 'Revenue'],
  ['b', 'Orders'],
  ['c', 'Cities'],
]);
const item = (widgetId: string, x: number, y: number, w: number, h: number): LayoutItem => ({ widgetId, x, y, w, h });
const paths = (layout: LayoutItem[]) => layoutIssues(layout, titles).map((i) => i.path);

describe('layoutIssues', () => {
  test('an empty layout, and widgets side by side or stacked, are fine', () => {
    expect(layoutIssues([], titles)).toEqual([]);
    expect(layoutIssues([item('a', 0, 0, 6, 4), item('b', 6, 0, 6, 4), item('c', 0, 4, 12, 6)], titles)).toEqual([]);
  });

  test('a layout may leave widgets out', () => {
    expect(layoutIssues([item('b', 0, 0, 12, 2)], titles)).toEqual([]);
  });

  test('cells are integers', () => {
    expect(paths([item('a', 0.5, 0, 6, 1.5)])).toEqual(['layout.0.x', 'layout.0.h']);
  });

  test('inside the 12-column grid: x and y from 0, w and h at least 1, x + w at most 12', () => {
    expect(paths([item('a', -1, -2, 0, 0)])).toEqual(['layout.0.x', 'layout.0.y', 'layout.0.w', 'layout.0.h']);
    const [wide] = layoutIssues([item('a', 8, 0, 6, 2)], titles);
    expect(wide).toEqual({ path: 'layout.0.w', message: expect.stringContaining('x + w must be at most 12') });
    expect(layoutIssues([item('a', 0, 0, 12, 2)], titles)).toEqual([]);
    expect(paths([item('a', 0, 0, 13, 2)])).toEqual(['layout.0.w']);
  });

  test('heights and rows are bounded', () => {
    expect(paths([item('a', 0, 0, 1, MAX_ITEM_HEIGHT + 1)])).toEqual(['layout.0.h']);
    expect(layoutIssues([item('a', 0, MAX_GRID_ROWS - 2, 1, 2)], titles)).toEqual([]);
    expect(paths([item('a', 0, MAX_GRID_ROWS - 1, 1, 2)])).toEqual(['layout.0.y']);
  });

  test('every widget must be one of the dashboard', () => {
    expect(layoutIssues([item('zzz', 0, 0, 1, 1)], titles)).toEqual([{ path: 'layout.0.widgetId', message: 'zzz is not a widget of this dashboard' }]);
  });

  test('a widget is placed once', () => {
    const issues = layoutIssues([item('a', 0, 0, 1, 1), item('b', 1, 0, 1, 1), item('a', 5, 5, 1, 1)], titles);
    expect(issues).toEqual([{ path: 'layout.2.widgetId', message: expect.stringMatching(/"Revenue" \(a\).*second time \(already at layout\.0\)/) }]);
  });

  test('two overlapping widgets are both named', () => {
    const issues = layoutIssues([item('a', 0, 0, 6, 4), item('b', 5, 3, 6, 4)], titles);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe('layout.1');
    expect(issues[0].message).toContain('widget "Orders" (b) at x=5, y=3, w=6, h=4 overlaps widget "Revenue" (a) at x=0, y=0, w=6, h=4 (layout.0)');
  });

  test('touching edges do not overlap; one cell of overlap does', () => {
    expect(layoutIssues([item('a', 0, 0, 6, 4), item('b', 6, 0, 6, 4), item('c', 0, 4, 6, 1)], titles)).toEqual([]);
    expect(paths([item('a', 0, 0, 6, 4), item('b', 5, 3, 1, 1)])).toEqual(['layout.1']);
  });

  test('every pair that overlaps is reported', () => {
    expect(paths([item('a', 0, 0, 4, 4), item('b', 1, 1, 4, 4), item('c', 2, 2, 4, 4)])).toEqual(['layout.1', 'layout.2', 'layout.2']);
  });

  test('an item that is invalid on its own is not also reported as overlapping', () => {
    expect(paths([item('a', 0, 0, 6, 4), item('zzz', 0, 0, 6, 4)])).toEqual(['layout.1.widgetId']);
  });

  test('a flood of problems is cut short with a count', () => {
    const many = Array.from({ length: 20 }, (_, i) => item(`w${i}`, 0, 0, 1, 1));
    const issues = layoutIssues(many, new Map(many.map((m) => [m.widgetId, m.widgetId])));
    expect(issues).toHaveLength(51);
    expect(issues[50]).toEqual({ path: 'layout', message: `and ${190 - 50} more problems` });
  });
});

describe('placing and removing widgets', () => {
  test('a new widget goes to the left edge, below everything', () => {
    expect(bottomOf([])).toBe(0);
    expect(placeAtBottom([], 'a', { w: 6, h: 4 })).toEqual(item('a', 0, 0, 6, 4));
    const layout = [item('a', 0, 0, 6, 4), item('b', 6, 0, 6, 7), item('c', 0, 4, 3, 2)];
    expect(placeAtBottom(layout, 'd', { w: 12, h: 6 })).toEqual(item('d', 0, 7, 12, 6));
  });

  test('no room below the last row', () => {
    expect(placeAtBottom([item('a', 0, MAX_GRID_ROWS - 3, 1, 1)], 'b', { w: 3, h: 2 })).toEqual(item('b', 0, MAX_GRID_ROWS - 2, 3, 2));
    expect(placeAtBottom([item('a', 0, MAX_GRID_ROWS - 2, 1, 1)], 'b', { w: 3, h: 2 })).toBeNull();
  });

  test('a deleted widget leaves the layout; the others stay where they were', () => {
    const layout = [item('a', 0, 0, 6, 4), item('b', 6, 0, 6, 4)];
    expect(withoutWidget(layout, 'a')).toEqual([item('b', 6, 0, 6, 4)]);
    expect(withoutWidget(layout, 'zzz')).toEqual(layout);
  });
});
