import { Column, Entity } from 'typeorm';
import type { AnalyticsQuery } from '../analytics/analytics.schemas';
import { OrganizationResource } from '../db/organization-resource';
import type { ChartTypeName } from './chart-types';

/**
 * A widget (interface.md 2.5): one chart over one data source of the
 * organization, or a text tile (chart type `text`: Markdown in its
 * displayConfig, no source, no query). Its source may be deleted later: the
 * widget stays, and reading its data fails with a clear error (widget-sources.ts).
 */
@Entity({ name: 'dashboard_widgets' })
export class DashboardWidget extends OrganizationResource {
  @Column({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ name: 'chart_type', type: 'text' })
  chartType!: ChartTypeName;

  /** null for a text widget (and only for one: the table's check). */
  @Column({ name: 'data_source_id', type: 'uuid', nullable: true })
  dataSourceId!: string | null;

  /** The analytics query of interface.md 2.9, as validated by AnalyticsQuery (defaults filled in); null for a text widget. */
  @Column({ name: 'query_config', type: 'jsonb', nullable: true })
  queryConfig!: AnalyticsQuery | null;

  /** How the client draws it (legend, colours, …): kept as sent, never interpreted here. */
  @Column({ name: 'display_config', type: 'jsonb' })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's insert/update take QueryDeepPartialEntity, which turns unknown values into {}: a jsonb object typed Record<string, unknown> cannot be written
  displayConfig!: Record<string, any>;
}
