import type { EChartsOption } from 'echarts';

/**
 * What a widget is drawn from: the stored widget's fields (interface.md 2.5).
 * Only what drawing needs; a full Widget from the API fits.
 */
export interface ChartWidget {
  title: string;
  chartType: string;
  queryConfig: {
    measures?: string[];
    dimensions?: string[];
    timeDimensions?: Array<{ dimension: string; granularity?: string }>;
  };
  displayConfig?: Record<string, unknown>;
}

/** Cube's annotation of one member, as `/dashboards/{id}/data` answers it. */
export interface MemberAnnotation {
  title?: string;
  shortTitle?: string;
  type?: string;
  /** Cube's member format: `percent`, `currency`, `number`, `id`, `imageUrl`, `link`… */
  format?: unknown;
}

export interface ResultAnnotation {
  measures?: Record<string, MemberAnnotation>;
  dimensions?: Record<string, MemberAnnotation>;
  timeDimensions?: Record<string, MemberAnnotation>;
}

/**
 * One widget's answer: an entry of `POST /dashboards/{id}/data`'s `widgets`
 * (with or without its `widgetId`), or the body of
 * `POST /dashboards/widgets/{widgetId}/data`.
 */
export type ChartResult =
  { data: Array<Record<string, unknown>>; annotation?: ResultAnnotation; unknownMembers?: string[] } | { error: { code: string; message: string } };

export interface ViewOptions {
  /** The zone the widget's query ran in (the data call's `timezone`): time labels are written in it. */
  timeZone: string;
  /** BCP 47 locale of labels and numbers; `en-US` when not given, so the server's output does not depend on its host. */
  locale?: string;
}

export interface TableColumn {
  key: string;
  label: string;
  align: 'left' | 'right';
}

/** What a widget's tile shows, whatever draws it (the console's ECharts, the report's SVG and HTML). */
export type WidgetView =
  | { kind: 'chart'; option: EChartsOption }
  | { kind: 'stat'; label: string; value: number | null; text: string }
  | { kind: 'table'; columns: TableColumn[]; rows: string[][] }
  | { kind: 'empty'; message: string }
  | { kind: 'error'; code: string; message: string };
