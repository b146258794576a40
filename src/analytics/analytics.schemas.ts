import { z } from '../openapi/zod';
import { withinDepth } from '../db/storable-json';

/** The most rows one query answers; Cube's own ceiling. CSV export has none. */
export const MAX_QUERY_ROWS = 50_000;

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const Member = z.string().min(1).max(300);

/** Cube 0.35's filter operators (api-gateway query.js), checked here so a typo gets a message naming them. */
export const FILTER_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  'inDateRange',
  'notInDateRange',
  'onTheDate',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
  'measureFilter',
] as const;

type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Operators that compare dates: Cube runs them on time dimensions only. */
export const DATE_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>([
  'inDateRange',
  'notInDateRange',
  'onTheDate',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
]);
/** Operators that match text (PostgreSQL's ILIKE): string dimensions only. */
export const TEXT_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>([
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
]);
/** Operators that compare a member with its values as they are: the values must be of the member's type. */
export const COMPARISON_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>(['equals', 'notEquals', 'in', 'notIn', 'gt', 'gte', 'lt', 'lte']);
/** Operators that take no values. */
export const VALUELESS_OPERATORS: ReadonlySet<string> = new Set<FilterOperator>(['set', 'notSet', 'measureFilter']);

const FilterValue = z.union([z.string(), z.number(), z.boolean(), z.null()]).transform((v) => (v === null ? null : String(v)));

export type Filter = { member?: string; dimension?: string; operator: string; values?: Array<string | null> } | { and: Filter[] } | { or: Filter[] };

export const Filter: z.ZodType<Filter> = z
  .lazy(() =>
    z.union([
      z.strictObject({ and: z.array(Filter).max(50) }),
      z.strictObject({ or: z.array(Filter).max(50) }),
      z
        .strictObject({
          member: Member.optional(),
          dimension: Member.optional(),
          operator: z.enum(FILTER_OPERATORS, { error: `must be one of ${FILTER_OPERATORS.join(', ')}` }),
          values: z.array(FilterValue).max(1000).optional(),
        })
        .refine((f) => f.member !== undefined || f.dimension !== undefined, 'name the filtered field as member or dimension'),
    ]),
  )
  .openapi('AnalyticsFilter') as z.ZodType<Filter>;

/** How deep a query's filters may nest: 10 levels of and/or (each an object and an array) plus the leaf. */
export const MAX_FILTER_JSON_DEPTH = 24;

// Depth first: zod's recursive Filter would otherwise overflow the stack on thousands of nested and/or levels (a 500).
const Filters = z
  .array(z.unknown())
  .max(100)
  .refine((filters) => withinDepth(filters, MAX_FILTER_JSON_DEPTH), 'filters nest at most 10 levels of and/or')
  .pipe(z.array(Filter))
  // Documented as what it accepts: the depth check's unknown items would hide the filter shape.
  .openapi({ items: { $ref: '#/components/schemas/AnalyticsFilter' } });

const DateRange = z.union([z.string().min(1).max(100), z.tuple([z.string().max(40), z.string().max(40)])]);

/** An analytics query (interface.md 2.9), in Cube's REST shape. */
export const AnalyticsQuery = z
  .strictObject({
    measures: z.array(Member).max(100).default([]),
    dimensions: z.array(Member).max(100).default([]),
    timeDimensions: z
      .array(z.strictObject({ dimension: Member, granularity: z.string().max(20).optional(), dateRange: DateRange.optional() }))
      .max(10)
      .default([]),
    filters: Filters.default([]),
    segments: z.array(Member).max(20).optional(),
    order: z.union([z.record(z.string(), z.enum(['asc', 'desc'])), z.array(z.tuple([Member, z.enum(['asc', 'desc'])]))]).optional(),
    timeRange: z.strictObject({ type: z.literal('relative'), value: z.string().min(1).max(100) }).optional(),
    timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as America/New_York').optional(),
    limit: z.number().int().min(1).max(MAX_QUERY_ROWS).optional(),
    offset: z.number().int().min(0).optional(),
    ungrouped: z.boolean().optional(),
  })
  .openapi('AnalyticsQuery');
export type AnalyticsQuery = z.output<typeof AnalyticsQuery>;

export const QueryBody = z.strictObject({ query: AnalyticsQuery });
export const ExportBody = z.strictObject({ query: AnalyticsQuery, title: z.string().max(200).default('export') });

export const DistinctValuesBody = z.strictObject({
  dataSourceId: z.string().max(100),
  dimension: z.string().min(1).max(300),
  search: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
  dateRange: DateRange.optional(),
});
export type DistinctValuesBody = z.output<typeof DistinctValuesBody>;

const MetaMember = z.object({ name: z.string(), title: z.string(), type: z.string(), calculated: z.boolean().optional() });
export const MetaEntry = z
  .object({ name: z.string(), title: z.string(), measures: z.array(MetaMember), dimensions: z.array(MetaMember) })
  .openapi('AnalyticsMetaEntry');
export type MetaEntry = z.output<typeof MetaEntry>;
