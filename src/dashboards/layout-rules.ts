import type { FieldIssue } from '../errors/errors';
import { GRID_COLUMNS } from './chart-types';

/**
 * The grid a dashboard's layout lives on: GRID_COLUMNS (12) columns, rows as
 * deep as needed up to MAX_GRID_ROWS. Each item places one widget of the
 * dashboard at integer cells; a widget left out of the layout still exists
 * but is not shown.
 */
export interface LayoutItem {
  widgetId: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The most widgets one dashboard holds (and so the longest layout). */
export const MAX_WIDGETS_PER_DASHBOARD = 200;
/** The tallest a widget may be, in rows. */
export const MAX_ITEM_HEIGHT = 50;
/** No item may reach below this row: MAX_WIDGETS_PER_DASHBOARD items of MAX_ITEM_HEIGHT stacked fit, with room to spare. */
export const MAX_GRID_ROWS = 20_000;
/** Past this many problems the answer says how many more there were instead of listing them. */
const MAX_ISSUES = 50;

const named = (item: LayoutItem, titles: ReadonlyMap<string, string>) => {
  const title = titles.get(item.widgetId);
  return `${title === undefined ? 'widget' : `widget "${title}"`} (${item.widgetId}) at x=${item.x}, y=${item.y}, w=${item.w}, h=${item.h}`;
};

const overlap = (a: LayoutItem, b: LayoutItem) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** What is wrong with one item on its own: integers, inside the grid, a sensible size. */
function itemIssues(item: LayoutItem, path: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const key of ['x', 'y', 'w', 'h'] as const) {
    if (!Number.isInteger(item[key])) issues.push({ path: `${path}.${key}`, message: 'must be an integer (grid cells)' });
  }
  if (issues.length > 0) return issues;
  if (item.x < 0) issues.push({ path: `${path}.x`, message: 'must be 0 or more (the leftmost column is 0)' });
  if (item.y < 0) issues.push({ path: `${path}.y`, message: 'must be 0 or more (the top row is 0)' });
  if (item.w < 1) issues.push({ path: `${path}.w`, message: 'must be at least 1 column' });
  if (item.h < 1) issues.push({ path: `${path}.h`, message: 'must be at least 1 row' });
  if (item.h > MAX_ITEM_HEIGHT) issues.push({ path: `${path}.h`, message: `must be at most ${MAX_ITEM_HEIGHT} rows` });
  if (item.x >= 0 && item.w >= 1 && item.x + item.w > GRID_COLUMNS) {
    issues.push({
      path: `${path}.w`,
      message: `reaches column ${item.x + item.w}, past the ${GRID_COLUMNS}-column grid: x + w must be at most ${GRID_COLUMNS}`,
    });
  }
  if (item.y >= 0 && item.h >= 1 && item.y + item.h > MAX_GRID_ROWS) {
    issues.push({ path: `${path}.y`, message: `reaches row ${item.y + item.h}: y + h must be at most ${MAX_GRID_ROWS}` });
  }
  return issues;
}

/**
 * Everything wrong with a layout for a dashboard whose widgets are `titles`
 * (widget id → title), each naming the item (`layout.<i>…`): cells that are
 * not integers or fall outside the grid, a widget that is not one of this
 * dashboard's, a widget placed twice, and two widgets overlapping (each
 * named). Overlaps are checked between items that are otherwise valid.
 */
export function layoutIssues(layout: readonly LayoutItem[], titles: ReadonlyMap<string, string>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const placed: Array<{ item: LayoutItem; index: number }> = [];
  const firstIndex = new Map<string, number>();
  layout.forEach((item, index) => {
    const path = `layout.${index}`;
    const own = itemIssues(item, path);
    if (!titles.has(item.widgetId)) own.push({ path: `${path}.widgetId`, message: `${item.widgetId} is not a widget of this dashboard` });
    const first = firstIndex.get(item.widgetId);
    if (first !== undefined) {
      own.push({ path: `${path}.widgetId`, message: `places ${named(item, titles)} a second time (already at layout.${first})` });
    } else firstIndex.set(item.widgetId, index);
    issues.push(...own);
    if (own.length === 0) placed.push({ item, index });
  });
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) {
      const a = placed[i];
      const b = placed[j];
      if (overlap(a.item, b.item)) {
        issues.push({ path: `layout.${b.index}`, message: `${named(b.item, titles)} overlaps ${named(a.item, titles)} (layout.${a.index})` });
      }
    }
  }
  if (issues.length <= MAX_ISSUES) return issues;
  return [...issues.slice(0, MAX_ISSUES), { path: 'layout', message: `and ${issues.length - MAX_ISSUES} more problems` }];
}

/** The first free row below every item (0 for an empty layout). */
export function bottomOf(layout: readonly LayoutItem[]): number {
  return layout.reduce((bottom, item) => Math.max(bottom, item.y + item.h), 0);
}

/**
 * Where a new widget goes: the left edge, below everything else, at its
 * chart type's default size. Null when that would reach past MAX_GRID_ROWS.
 */
export function placeAtBottom(layout: readonly LayoutItem[], widgetId: string, size: { w: number; h: number }): LayoutItem | null {
  const y = bottomOf(layout);
  if (y + size.h > MAX_GRID_ROWS) return null;
  return { widgetId, x: 0, y, w: size.w, h: size.h };
}

/** The layout without the widget (deleted widgets leave the grid with it). */
export function withoutWidget(layout: readonly LayoutItem[], widgetId: string): LayoutItem[] {
  return layout.filter((item) => item.widgetId !== widgetId);
}
