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
export const sourceDef = (name: string, table: string, extra: Json = {}): Json => ({
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
export const dashboardDef = (name: string, sourceName: string, widgets: Json[] = [barWidget('w1', 'By region')]): Json => ({
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
