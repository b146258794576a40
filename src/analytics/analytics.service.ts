import type { Writable } from 'node:stream';
import { type CubeContext, type CubeMetaMember, type CubeQuery, modelVersion, type SemanticLayer } from '../../cube/semantic-layer';
import type { AnalyticsSource } from '../data-sources/analytics-source.entity';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import { timeField } from '../data-sources/serving-relation';
import { AppError, ValidationError } from '../errors/errors';
import { type AnalyticsSlots, type Asked, cubeFailure } from './analytics-limits';
import type { AnalyticsQuery, DistinctValuesBody, MetaEntry } from './analytics.schemas';
import { type CsvExporter, csvLine, StalledReader } from './csv-export';
import type { Logger } from '../logging/logger';
import { inSpan } from '../observability/trace-context';
import { dateRangeIssues, type KnownMember, queryIssues } from './query-checks';
import { queryMembers, sourceAlias, toCubeQuery } from './query-members';
import { IN_QUERY_BODY, type PlaceInRequest, refusedQuery } from './refused-query';

type MetaMember = MetaEntry['measures'][number];

/** An organization's compiled model: Cube's context for it, and what its members are. */
interface Model {
  context: CubeContext;
  sources: Map<string, AnalyticsSource>;
  entries: MetaEntry[];
  members: Map<string, MetaMember & KnownMember>;
}

/** Cube's annotation of an answer with no members: what a query naming unknown members answers with. */
export const EMPTY_ANNOTATION = { measures: {}, dimensions: {}, segments: {}, timeDimensions: {} };

/**
 * Analytics over data sources (interface.md 4.4), answered by Cube. Before
 * Cube sees a query, its members are checked against the caller's own model:
 * a query naming none of the organization's sources is refused, and one that
 * names a member its source does not have matches nothing (interface.md 7.2)
 * instead of failing, so a widget with a stale field shows no rows. A query
 * the model shows to be wrong (query-checks.ts), or that Cube refuses
 * (cubeFailure), is 400 `invalid_query` naming what is wrong and where.
 *
 * Everything that reaches the database waits its turn in `slots`, fairly
 * between organizations: one organization's heavy queries or exports queue
 * behind each other, not in front of another organization's.
 */
export class AnalyticsService {
  constructor(
    private readonly dataSources: DataSourcesService,
    private readonly engine: SemanticLayer,
    private readonly exporter: CsvExporter,
    readonly slots: AnalyticsSlots,
    private readonly logger: Logger,
  ) {}

  async meta(organizationId: string): Promise<MetaEntry[]> {
    return (await this.model(organizationId)).entries;
  }

  /** `at` places the query's parts in the caller's request, for the details of a refusal (default: the body's `query`). */
  async query(organizationId: string, query: AnalyticsQuery, at: PlaceInRequest = IN_QUERY_BODY) {
    const { model, cubeQuery, unknown, named } = await this.prepare(organizationId, query, at);
    if (unknown.length > 0) return { data: [], annotation: EMPTY_ANNOTATION, query: cubeQuery, unknownMembers: unknown };
    const answer = await this.load(organizationId, model.context, cubeQuery, { query, at });
    // Again after Cube answered: a share revoked while the query ran must not be answered from Cube's cache.
    await this.dataSources.assertReadable(named);
    return { data: answer.data, annotation: answer.annotation, query: answer.query };
  }

  /**
   * Streams every row of the query as CSV (no row limit unless the query sets
   * one): dimensions, time dimensions, then measures, headed by their titles.
   * A query that matches nothing gives the header alone.
   */
  async exportCsv(organizationId: string, query: AnalyticsQuery, out: { start(): Writable }, at: PlaceInRequest = IN_QUERY_BODY): Promise<void> {
    const { model, cubeQuery, unknown } = await this.prepare(organizationId, query, at);
    const wanted = [
      ...query.dimensions,
      ...query.timeDimensions.map((t) => (t.granularity ? `${t.dimension}.${t.granularity}` : undefined)).filter((m): m is string => m !== undefined),
      ...query.measures,
    ];
    if (unknown.length > 0) {
      out.start().end(csvLine(wanted.map((m) => this.columnTitle(model, m))));
      return;
    }
    const planned = await this.slots.queries
      .run(organizationId, () => this.engine.sql(model.context, cubeQuery))
      .catch((err) => cubeFailure(err, { query, at }));
    const [sql, params] = planned.sql;
    const aliasOf = new Map(Object.entries(planned.aliasNameToMember).map(([alias, member]) => [member, alias]));
    const columns = wanted.filter((m) => aliasOf.has(m));
    const aliases = columns.map((m) => aliasOf.get(m)!);
    const titles = columns.map((m) => this.columnTitle(model, m));
    // A statement timeout before the first row is answered by the error middleware (504 query_timeout).
    await this.slots.exports
      .run(organizationId, () => this.exporter.stream(sql, params, aliases, titles, out))
      .catch((err) => {
        if (err instanceof StalledReader) this.logger.info({ organizationId, reason: err.message }, 'CSV export cut off');
        throw err;
      });
  }

  /** Values of one dimension, sorted, with an optional substring filter and date range; unknown or disabled sources give none. */
  async distinctValues(organizationId: string, body: DistinctValuesBody): Promise<string[]> {
    const model = await this.model(organizationId);
    const source = [...model.sources.values()].find((s) => s.id === body.dataSourceId);
    // A revoked share fails (not an empty list): its source was disabled by the revocation, not by a user.
    if (source) await this.dataSources.assertReadable([source]);
    if (!source || !source.enabled) return [];
    const badRange = dateRangeIssues(body.dateRange, 'dateRange', 'UTC');
    if (badRange.length > 0) throw refusedQuery(badRange, (path) => path);
    const member = body.dimension.includes('.') ? body.dimension : `${source.servingRelation}.${body.dimension}`;
    const known = model.members.get(member);
    // Measures are numbers, so a string member is always a dimension.
    if (sourceAlias(member) !== source.servingRelation || known?.type !== 'string') return [];
    const filters: Array<Record<string, unknown>> = [{ member, operator: 'set' }];
    if (body.search) filters.push({ member, operator: 'contains', values: [body.search] });
    const timeDimensions = body.dateRange ? [{ dimension: `${source.servingRelation}.${timeField(source.recordSchema)}`, dateRange: body.dateRange }] : [];
    const answer = await this.load(
      organizationId,
      model.context,
      {
        dimensions: [member],
        filters,
        timeDimensions,
        order: { [member]: 'asc' },
        limit: body.limit,
      },
      // The member and the date range are checked above: a refusal left is about one of the two.
      { at: (path) => (path.startsWith('timeDimensions') ? 'dateRange' : 'dimension') },
    );
    await this.dataSources.assertReadable([source]);
    return answer.data.map((row) => String(row[member]));
  }

  /** A Cube query in the organization's turn; its slot is held until Cube has answered, however many times it said "Continue wait". */
  private load(organizationId: string, context: CubeContext, query: CubeQuery, asked: Asked) {
    // Its span covers the wait for a slot and Cube's query; what the query asks stays out of it, only its shape.
    const count = (members: unknown) => (Array.isArray(members) ? members.length : 0);
    const shape = { 'flowbase.analytics.measures': count(query.measures), 'flowbase.analytics.dimensions': count(query.dimensions) };
    return inSpan('analytics.query', shape, async (span) => {
      const answer = await this.slots.queries.run(organizationId, () => this.engine.load(context, query));
      span.setAttribute('flowbase.analytics.rows', answer.data.length);
      return answer;
    }).catch((err) => cubeFailure(err, asked));
  }

  /** The model, the query in Cube's terms and its unknown members; a query naming no source, or one the model shows to be wrong, is refused. */
  private async prepare(organizationId: string, query: AnalyticsQuery, at: PlaceInRequest) {
    const model = await this.model(organizationId);
    const members = queryMembers(query);
    if (!members.some((m) => model.sources.has(sourceAlias(m)))) {
      throw new ValidationError(
        'The query names no data source of this organization: qualify measures and dimensions with a source name such as ds_<id>.count (GET /dashboards/analytics/meta lists them)',
        undefined,
        'no_data_source',
      );
    }
    const named = [...new Set(members.map(sourceAlias))].flatMap((alias) => model.sources.get(alias) ?? []);
    await this.dataSources.assertReadable(named);
    const timeDimensionOf = (alias: string) => {
      const source = model.sources.get(alias);
      return source ? `${alias}.${timeField(source.recordSchema)}` : undefined;
    };
    const issues = queryIssues(query, { member: (name) => model.members.get(name), timeDimensionOf });
    if (issues.length > 0) throw refusedQuery(issues, at);
    const unknown = [...new Set(members.filter((m) => !model.members.has(m)))];
    const cubeQuery = toCubeQuery(query, timeDimensionOf);
    return { model, cubeQuery, unknown, named };
  }

  private async model(organizationId: string): Promise<Model> {
    const sources = await this.dataSources.list(organizationId);
    const context = { organizationId, modelVersion: modelVersion(sources) };
    const model: Model = { context, sources: new Map(sources.map((s) => [s.servingRelation, s])), entries: [], members: new Map() };
    if (sources.length === 0) return model;
    const meta = await this.engine.meta(context).catch((err) => {
      this.logger.error({ organizationId, err: err instanceof Error ? err.message : String(err) }, 'analytics model failed to compile');
      throw new AppError(500, 'analytics_model_failed', 'The analytics model of this organization could not be compiled; the error is logged');
    });
    const cubes = new Map(meta.cubes.map((c) => [c.name, c]));
    for (const source of sources) {
      const cube = cubes.get(source.servingRelation);
      if (!cube) continue;
      const present = (m: CubeMetaMember): MetaMember => ({
        name: m.name,
        title: m.shortTitle ?? m.title,
        type: m.type,
        ...(m.meta?.calculated ? { calculated: true } : {}),
      });
      const visible = (list: CubeMetaMember[]) => list.filter((m) => m.isVisible !== false).map(present);
      const entry = { name: cube.name, title: cube.title ?? source.name, measures: visible(cube.measures), dimensions: visible(cube.dimensions) };
      model.entries.push(entry);
      // count(*) and row_number() are bigints in PostgreSQL: a comparison with 1.5 would fail there.
      const integers = new Set([`${cube.name}.count`, ...source.windowDimensions.map((w) => `${cube.name}.${w.name}`)]);
      for (const m of entry.measures) model.members.set(m.name, { ...m, kind: 'measure', integer: integers.has(m.name) });
      for (const m of entry.dimensions) model.members.set(m.name, { ...m, kind: 'dimension', integer: integers.has(m.name) });
    }
    return model;
  }

  private columnTitle(model: Model, member: string): string {
    // Time dimensions come back as `cube.field.granularity`.
    const [alias, field, granularity] = member.split('.');
    const known = model.members.get(`${alias}.${field}`);
    const title = known?.title ?? field;
    return granularity ? `${title} (${granularity})` : title;
  }
}
