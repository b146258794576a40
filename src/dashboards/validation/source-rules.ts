import { type PathSegment, quote, type WidgetFindings } from './report';

/** What validate needs of a data source; an `AnalyticsSource` entity has it. */
export interface ValidationSource {
  id: string;
  name: string;
  /** The source's alias in the model and in member names (`ds_…`). */
  servingRelation: string;
  enabled: boolean;
  /** Its window dimensions, whose values are whole numbers. */
  windowDimensions?: ReadonlyArray<{ name: string }>;
}

export interface SourceContext {
  byId: ReadonlyMap<string, ValidationSource>;
  all: readonly ValidationSource[];
  foreignSourceIds: ReadonlySet<string>;
  findings: WidgetFindings;
  path: PathSegment[];
}

/**
 * `unknown-source`, `foreign-source`, `source-disabled`: the widget's source
 * must be one of the organization's. Another organization's source is named
 * as such: elsewhere the contract answers it with 400, so its existence is
 * no secret. Returns the source when it is the organization's.
 */
export function checkSource(dataSourceId: string, ctx: SourceContext): ValidationSource | undefined {
  // Ids are UUIDs, which PostgreSQL compares without regard to case.
  const id = dataSourceId.toLowerCase();
  const source = ctx.byId.get(dataSourceId) ?? ctx.byId.get(id);
  if (source) {
    if (!source.enabled) {
      ctx.findings.add(
        'source-disabled',
        `Data source ${quote(source.name)} is disabled: the widget shows the data it held when it was paused, and new records do not appear until it is enabled`,
        ctx.path,
      );
    }
    return source;
  }
  if (ctx.foreignSourceIds.has(dataSourceId) || ctx.foreignSourceIds.has(id)) {
    ctx.findings.add(
      'foreign-source',
      `Data source ${quote(dataSourceId)} belongs to another organization; a widget uses a source of its own organization`,
      ctx.path,
    );
    return undefined;
  }
  // Someone may name the source by its name or alias instead of its id.
  const named = ctx.all.find((s) => s.servingRelation === dataSourceId || s.name.toLowerCase() === id);
  const hint = named ? `; ${quote(named.name)} has the id ${quote(named.id)}` : ' (GET /dashboards/data-sources lists them)';
  ctx.findings.add('unknown-source', `Data source ${quote(dataSourceId)} is not a data source of this organization${hint}`, ctx.path);
  return undefined;
}
