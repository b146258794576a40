import { cartesianOption } from './cartesian';
import { displaySettings } from './display-config';
import { widgetFields } from './fields';
import { toNumber } from './number-format';
import { pieOption } from './pie';
import type { ChartResult, ChartWidget, TableColumn, ViewOptions, WidgetView } from './types';

/**
 * What a widget's tile shows, from the widget and its answer (an entry of
 * `/dashboards/{id}/data`, or `/dashboards/widgets/{widgetId}/data`):
 * - an answer with `error`: the error, to be shown in the tile;
 * - `stat-card`: the first measure of the first row, written by its format;
 * - `table`: dimensions, time dimensions, then measures, every cell written;
 * - `line`, `area`, `bar`, `pie`: an ECharts option, without animation so
 *   that the same answer always draws the same picture;
 * - a chart with no rows: `empty` (saying which members matched nothing).
 * A chart type this module does not know is drawn as a table.
 */
export function widgetView(widget: ChartWidget, result: ChartResult, opts: ViewOptions): WidgetView {
  if ('error' in result) return { kind: 'error', code: result.error.code, message: result.error.message };
  const display = displaySettings(widget.displayConfig);
  const fields = widgetFields(widget, result.annotation, opts, display.currency);
  const rows = result.data;

  if (widget.chartType === 'stat-card') {
    const m = fields.measures[0];
    if (!m) return { kind: 'empty', message: 'No measure to show' };
    const raw = rows[0]?.[m.key];
    return { kind: 'stat', label: m.label, value: toNumber(raw), text: m.format(raw ?? null) };
  }
  if (rows.length === 0) return { kind: 'empty', message: emptyMessage(result.unknownMembers) };

  switch (widget.chartType) {
    case 'line':
    case 'area':
    case 'bar':
      if (fields.measures.length > 0) return { kind: 'chart', option: cartesianOption(widget.chartType, fields, rows, display, opts.timeZone) };
      break;
    case 'pie':
      if (fields.measures.length > 0) return { kind: 'chart', option: pieOption(fields, rows, display) };
      break;
  }
  // A table, or a chart whose query has nothing to draw (saved anyway: the validate endpoint warns): its rows as they are.
  const columns = [...fields.dimensions, ...fields.times, ...fields.measures];
  return {
    kind: 'table',
    columns: columns.map((f): TableColumn => ({ key: f.key, label: f.label, align: f.numeric ? 'right' : 'left' })),
    rows: rows.map((row) => columns.map((f) => f.format(row[f.key] ?? null))),
  };
}

function emptyMessage(unknownMembers: string[] | undefined): string {
  if (unknownMembers && unknownMembers.length > 0) return `No data: ${unknownMembers.join(', ')} matched no field of the source`;
  return 'No data';
}
