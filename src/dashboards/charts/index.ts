/**
 * Widgets as drawable views, shared by the console (through its `@charts`
 * alias) and the report PDF. Pure TypeScript: nothing here may import Node
 * or server code at runtime. Drawing a view to SVG on the server is
 * svg-render.ts, which is not exported here because it loads ECharts.
 */
export { widgetView } from './widget-view';
export type { ChartResult, ChartWidget, MemberAnnotation, ResultAnnotation, TableColumn, ViewOptions, WidgetView } from './types';
export { displaySettings, type DisplaySettings } from './display-config';
export { timeLabel, timeValueInstant } from './time-labels';
export { numberFormatter, toNumber, type ValueFormatter } from './number-format';
export { CHART_TEXT } from './cartesian';
