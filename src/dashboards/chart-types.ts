/**
 * The chart types a widget may have, what each needs from its query, where
 * it lands on the grid when added, and how many rows it can usefully show.
 * Widget creation (default sizes) and the validate endpoint (requirements,
 * warnings) both read this table, so a new chart type is one entry here.
 */
export interface ChartType {
  /** Measures the query must name, at least. */
  minMeasures: number;
  /** At most this many measures (pie: one value per slice). */
  maxMeasures?: number;
  /** A time dimension with a granularity is required: the x axis is time. */
  timeSeries: boolean;
  /** Needs something to group by: a dimension, or a time dimension with a granularity. */
  needsGrouping: boolean;
  /** Must not group at all: a single number. */
  singleValue: boolean;
  /** Width and height on the 12-column grid when the widget is added. */
  defaultSize: { w: number; h: number };
  /** More rows than this still work but cannot be read on the chart (validate warns). */
  readableRows: number;
  /** One line for the README and the OpenAPI document. */
  summary: string;
  /** No data source and no query: the tile shows displayConfig.markdown (headings, notes). */
  dataless?: true;
}

export const CHART_TYPES = {
  line: {
    minMeasures: 1,
    timeSeries: true,
    needsGrouping: true,
    singleValue: false,
    defaultSize: { w: 6, h: 4 },
    readableRows: 5_000,
    summary: 'one or more measures over a time dimension with a granularity (the x axis); dimensions split the lines',
  },
  area: {
    minMeasures: 1,
    timeSeries: true,
    needsGrouping: true,
    singleValue: false,
    defaultSize: { w: 6, h: 4 },
    readableRows: 5_000,
    summary: 'as line, filled and stacked',
  },
  bar: {
    minMeasures: 1,
    timeSeries: false,
    needsGrouping: true,
    singleValue: false,
    defaultSize: { w: 6, h: 4 },
    readableRows: 200,
    summary: 'one or more measures grouped by a dimension or by a time dimension with a granularity',
  },
  pie: {
    minMeasures: 1,
    maxMeasures: 1,
    timeSeries: false,
    needsGrouping: true,
    singleValue: false,
    defaultSize: { w: 4, h: 4 },
    readableRows: 20,
    summary: 'exactly one measure split by one dimension (a slice per value)',
  },
  'stat-card': {
    minMeasures: 1,
    timeSeries: false,
    needsGrouping: false,
    singleValue: true,
    defaultSize: { w: 3, h: 2 },
    readableRows: 1,
    summary: 'one number: a measure, no dimensions (a time dimension may bound it with a date range, without a granularity)',
  },
  table: {
    minMeasures: 0,
    timeSeries: false,
    needsGrouping: false,
    singleValue: false,
    defaultSize: { w: 12, h: 6 },
    readableRows: 1_000,
    summary: 'any measures and dimensions, at least one of either, as rows',
  },
  text: {
    minMeasures: 0,
    timeSeries: false,
    needsGrouping: false,
    singleValue: false,
    defaultSize: { w: 12, h: 2 },
    readableRows: 0,
    summary: 'a heading or a note: Markdown in displayConfig.markdown (no raw HTML, no images), with no data source and no query',
    dataless: true,
  },
} as const satisfies Record<string, ChartType>;

export type ChartTypeName = keyof typeof CHART_TYPES;
export const CHART_TYPE_NAMES = Object.keys(CHART_TYPES) as ChartTypeName[];

/** A chart type with no data source and no query (`text`). */
export const isDataless = (chartType: string): boolean => (CHART_TYPES as Record<string, ChartType>)[chartType]?.dataless === true;

/** The grid the layout lives on: 12 columns, rows as deep as needed. */
export const GRID_COLUMNS = 12;
