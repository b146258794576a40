import type { Express } from 'express';
import type { TestOrg } from './factories';
import { as } from './harness';
import { returnStep } from './workflow-api';

/**
 * Packages for the package tests, built from small parts: a package with
 * its manifest, data sources, workflows and dashboards (dashboard export
 * payloads whose sources are named after the package's own).
 */

type Json = Record<string, any>;

export const FIELDS = {
  at: { type: 'date', label: 'At', timeDimension: true },
  amount: { type: 'number', label: 'Amount', measure: true },
  region: { type: 'string', label: 'Region' },
};

/** A data source definition over `table`, with a calculated field and a window dimension. */
export const sourceDef = (name: string, table: string, extra: Json = {}): Json =>
  structuredClone({
    name,
    dataStoreTableName: table,
    recordSchema: {
      name,
      fields: FIELDS,
      calculatedFields: [
        {
          name: 'double',
          label: 'Double',
          type: 'number',
          measure: true,
          expression: { type: 'BinaryExpression', operator: '*', left: { type: 'Identifier', name: 'amount' }, right: { type: 'Literal', value: 2 } },
        },
      ],
    },
    windowDimensions: [{ name: 'seq', label: 'Seq', function: 'row_number', partitionBy: ['region'], orderBy: 'at' }],
    ...extra,
  });

export const workflowDef = (name: string, answer: unknown = { ok: true }): Json => ({ name, steps: [returnStep('answer', answer)] });

/** A dashboard export payload named `name` over the source named `sourceName`: one bar widget, a region filter with a default. */
export const dashboardDef = (name: string, sourceName: string, widgets: Json[] = [barWidget('w1', 'By region')]): Json =>
  structuredClone({
    format: 'flowbase.dashboard',
    version: 1,
    dashboard: {
      name,
      layout: widgets.map((w, i) => ({ widget: w.key, x: 0, y: i * 4, w: 6, h: 4 })),
      filterConfig: [{ id: 'region', dataSource: 'src', dimension: '$src.region', label: 'Region' }],
      filterDefaults: { region: ['EU'] },
    },
    widgets,
    dataSources: [{ exportId: 'src', name: sourceName, type: 'custom', dataStoreTableName: 'anything', recordSchema: { name: sourceName, fields: FIELDS } }],
  });

export const barWidget = (key: string, title: string): Json => ({
  key,
  title,
  chartType: 'bar',
  dataSource: 'src',
  queryConfig: { measures: ['$src.count', '$src.double'], dimensions: ['$src.region'] },
});

export interface PackageParts {
  dependencies?: Record<string, string>;
  description?: string;
  workflows?: Json[];
  dataSources?: Json[];
  dashboards?: Json[];
}

export const packageDef = (name: string, version: string, parts: PackageParts = {}): Json => ({
  manifest: { name, version, description: parts.description ?? `The ${name} package`, dependencies: parts.dependencies ?? {} },
  workflows: parts.workflows ?? [],
  dataSources: parts.dataSources ?? [],
  dashboards: parts.dashboards ?? [],
});

/** POST /packages with `body` as the JSON file, as `token` (default: the owner). */
export const install = (app: Express, org: TestOrg, body: unknown, token = org.ownerToken) =>
  as(app, token).post('/packages').set('Content-Type', 'application/json').send(JSON.stringify(body));

/**
 * What an install writes, counted for the organization: a refused install
 * must leave every count as it was, and no serving relation without its
 * source anywhere (a relation is created in the same transaction as its row).
 */
export async function footprint(db: { query(sql: string, params?: unknown[]): Promise<any[]> }, org: TestOrg) {
  const [row] = await db.query(
    `SELECT
       (SELECT count(*)::int FROM packages WHERE organization_id = $1) AS packages,
       (SELECT count(*)::int FROM package_items WHERE organization_id = $1) AS items,
       (SELECT count(*)::int FROM workflows WHERE organization_id = $1) AS workflows,
       (SELECT count(*)::int FROM workflow_versions v JOIN workflows w ON w.id = v.workflow_id WHERE w.organization_id = $1) AS versions,
       -- The built-in run sources (type flowbase:…) are every organization's, never a package's.
       (SELECT count(*)::int FROM data_sources WHERE organization_id = $1 AND type NOT LIKE 'flowbase:%') AS sources,
       (SELECT count(*)::int FROM dashboards WHERE organization_id = $1) AS dashboards,
       (SELECT count(*)::int FROM dashboard_widgets WHERE organization_id = $1) AS widgets,
       (SELECT count(*)::int FROM data_store_records WHERE organization_id = $1 AND key = '__meta__') AS tables,
       (SELECT count(*)::int FROM pg_tables WHERE schemaname = 'analytics' AND tablename LIKE 'ds\\_%'
          AND tablename NOT IN (SELECT serving_relation FROM data_sources)) AS orphan_relations`,
    [org.organizationId],
  );
  return row as Record<string, number>;
}
