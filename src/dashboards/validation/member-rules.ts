import { type AnalyticsQuery, DATE_OPERATORS } from '../../analytics/analytics.schemas';
import { CUBE_GRANULARITIES } from '../../analytics/date-ranges';
import type { MemberCatalog } from './member-catalog';
import { type MemberRef, memberRefs } from './member-refs';
import { type PathSegment, quote, type WidgetFindings } from './report';

export interface MemberContext {
  catalog: MemberCatalog;
  /** The alias (`ds_…`) of the widget's source, when it is one of the organization's. */
  ownAlias?: string;
  /** A source's name by its alias, for messages. */
  sourceName: (alias: string) => string | undefined;
  findings: WidgetFindings;
  /** The body path of a place in the parsed query (ParsedQuery.at). */
  at: (path: readonly PathSegment[]) => PathSegment[];
}

/**
 * `field-refs`, `source-mismatch`, `member-kind` and `duplicate-member`:
 * every member must exist, be of the widget's source, and be of the kind
 * its place needs. Each unknown or foreign name is reported once, at its
 * first place.
 */
export function checkMembers(q: AnalyticsQuery, ctx: MemberContext): void {
  const reported = new Set<string>();
  for (const ref of memberRefs(q)) {
    const member = ctx.catalog.get(ref.name);
    const path = ctx.at(ref.path);
    if (!member) {
      if (!reported.has(ref.name)) ctx.findings.add('field-refs', unknownMessage(ref, ctx), path);
      reported.add(ref.name);
      continue;
    }
    if (ctx.ownAlias && member.alias !== ctx.ownAlias && !reported.has(ref.name)) {
      reported.add(ref.name);
      const theirs = ctx.sourceName(member.alias);
      const mine = ctx.sourceName(ctx.ownAlias);
      ctx.findings.add(
        'source-mismatch',
        `${quote(ref.name)} is a field of data source ${theirs ? quote(theirs) : quote(member.alias)}, not of this widget's source ${mine ? quote(mine) : quote(ctx.ownAlias)}: a widget's query names fields of its own source only`,
        path,
      );
    }
    const wrongKind = kindProblem(ref, member.kind, member.type);
    if (wrongKind) ctx.findings.add('member-kind', `${quote(ref.name)} ${wrongKind}`, path);
  }
  duplicates(q, ctx);
}

function unknownMessage(ref: MemberRef, ctx: MemberContext): string {
  if (ref.role === 'segment') return `Unknown segment ${quote(ref.name)}: data sources define no segments; filter on a dimension instead`;
  // `ds_….created.day` in dimensions is Cube's shorthand for a time dimension; the analytics service checks members as written.
  const parts = ref.name.split('.');
  const time = parts.length === 3 ? ctx.catalog.get(`${parts[0]}.${parts[1]}`) : undefined;
  if (time?.type === 'time' && (CUBE_GRANULARITIES as readonly string[]).includes(parts[2])) {
    return `Unknown field ${quote(ref.name)}: name the time dimension with its granularity in timeDimensions, {dimension: ${quote(time.name)}, granularity: ${quote(parts[2])}}`;
  }
  const hint = ctx.catalog.suggest(ref.name, ctx.ownAlias);
  const qualify = ref.name.includes('.') ? '' : ': fields are named <source alias>.<field>';
  if (hint) return `Unknown field ${quote(ref.name)}${qualify}; did you mean ${quote(hint)}?`;
  return `Unknown field ${quote(ref.name)}${qualify} (GET /dashboards/analytics/meta lists the organization's fields)`;
}

function kindProblem(ref: MemberRef, kind: 'measure' | 'dimension', type: string): string | undefined {
  switch (ref.role) {
    case 'measure':
      return kind === 'dimension' ? 'is a dimension, not a measure: list it under dimensions' : undefined;
    case 'dimension':
      return kind === 'measure' ? 'is a measure, not a dimension: list it under measures' : undefined;
    case 'timeDimension':
      if (kind === 'measure') return 'is a measure, not a time dimension';
      return type !== 'time' ? `is a ${type} dimension, not a time dimension: list it under dimensions` : undefined;
    case 'filter':
      return ref.operator && DATE_OPERATORS.has(ref.operator) && type !== 'time'
        ? `is not a time dimension: the date operator ${quote(ref.operator)} compares dates only`
        : undefined;
    case 'segment':
      return `is a ${kind}, not a segment: data sources define no segments; filter on it instead`;
    default:
      return undefined;
  }
}

function duplicates(q: AnalyticsQuery, ctx: MemberContext): void {
  const once = (names: string[], field: string, label: (i: number) => string) => {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (seen.has(name)) ctx.findings.add('duplicate-member', `${label(i)} is listed twice in ${field}`, ctx.at([field, i]));
      seen.add(name);
    });
  };
  once(q.measures, 'measures', (i) => quote(q.measures[i]));
  once(q.dimensions, 'dimensions', (i) => quote(q.dimensions[i]));
  const td = q.timeDimensions;
  once(
    td.map((t) => `${t.dimension}\u0000${t.granularity ?? ''}`),
    'timeDimensions',
    (i) => `${quote(td[i].dimension)}${td[i].granularity ? ` by ${quote(td[i].granularity)}` : ''}`,
  );
}
