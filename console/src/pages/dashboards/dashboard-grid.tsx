import { type ReactNode, useMemo } from 'react';
import ReactGridLayout, { type Layout, useContainerWidth, verticalCompactor } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import type { LayoutItem } from './dashboard-api';

/** The API's grid (src/dashboards/chart-types.ts GRID_COLUMNS, layout-rules.ts MAX_ITEM_HEIGHT). */
const COLUMNS = 12;
const MAX_ITEM_HEIGHT = 50;
/** One grid row in pixels: a stat card (2 rows) holds a number, a chart (4 rows) reads well. */
const ROW_HEIGHT = 84;
const MARGIN = 12;
/** Below this width (a phone), 12 columns are too narrow to read: the tiles stack in one column, in grid order. */
export const NARROW_WIDTH = 600;

interface Props {
  layout: LayoutItem[];
  editing: boolean;
  /** New data is on its way (the tiles keep showing the last answer meanwhile). */
  busy: boolean;
  /** A drag or resize ended with this layout (compacted: no two items overlap). */
  onLayoutDone(layout: LayoutItem[]): void;
  /** The tile of each widget id in the layout. */
  tile(widgetId: string): ReactNode;
}

const toGrid = (layout: LayoutItem[]): Layout => layout.map(({ widgetId, x, y, w, h }) => ({ i: widgetId, x, y, w, h, maxH: MAX_ITEM_HEIGHT }));
const fromGrid = (layout: Layout): LayoutItem[] => layout.map(({ i, x, y, w, h }) => ({ widgetId: i, x, y, w, h }));

/**
 * The dashboard's 12-column grid, placed from the stored layout. Items
 * compact upwards, so a drag or resize can never leave two tiles overlapping
 * (the API refuses overlaps, layout-rules.ts). Dragging is by each tile's
 * handle, in edit mode only. Narrower than NARROW_WIDTH, the tiles stack in
 * one column (top to bottom, then left to right), each as tall as on the
 * grid; the stored layout is left as it is (nothing to drag there).
 */
export function DashboardGrid({ layout, editing, busy, onLayoutDone, tile }: Props) {
  // Measured before the grid is drawn: drawn first at a guessed width, every tile (and chart) would be laid out twice.
  const { width, containerRef, mounted } = useContainerWidth({ measureBeforeMount: true });
  const gridLayout = useMemo(() => toGrid(layout), [layout]);
  const dragConfig = useMemo(() => ({ enabled: editing, handle: '.tile-drag-handle' }), [editing]);
  const resizeConfig = useMemo(() => ({ enabled: editing, handles: ['se' as const] }), [editing]);
  const gridConfig = useMemo(
    () => ({ cols: COLUMNS, rowHeight: ROW_HEIGHT, margin: [MARGIN, MARGIN] as [number, number], containerPadding: [0, 0] as [number, number] }),
    [],
  );
  const done = (next: Layout) => onLayoutDone(fromGrid(next));
  const narrow = mounted && width < NARROW_WIDTH;
  const stacked = useMemo(() => [...layout].sort((a, b) => a.y - b.y || a.x - b.x), [layout]);

  return (
    <div ref={containerRef} className={editing ? 'grid editing' : 'grid'} aria-busy={busy}>
      {narrow && (
        <div className="grid-column">
          {stacked.map((item) => (
            <div key={item.widgetId} className="grid-column-item" style={{ height: item.h * ROW_HEIGHT + (item.h - 1) * MARGIN }}>
              {tile(item.widgetId)}
            </div>
          ))}
        </div>
      )}
      {mounted && !narrow && (
        <ReactGridLayout
          width={width}
          layout={gridLayout}
          gridConfig={gridConfig}
          dragConfig={dragConfig}
          resizeConfig={resizeConfig}
          compactor={verticalCompactor}
          onDragStop={done}
          onResizeStop={done}
        >
          {layout.map((item) => (
            <div key={item.widgetId}>{tile(item.widgetId)}</div>
          ))}
        </ReactGridLayout>
      )}
    </div>
  );
}
