import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import { createLogger } from '../src/logging/logger';
import { createSemanticLayer, type SemanticLayer } from './semantic-layer';

/**
 * What the contract tests of the semantic layer share (cube/semantic-layer.test.ts,
 * test/cube-semantic-layer.integration.test.ts): one source with a member of each
 * kind the service defines, and layers built through the one door.
 */

/** A source over `servingRelation` with a measure, dimensions of each type, a calculated measure and dimension, and a window dimension. */
export function ordersSource(servingRelation: string, updatedAt = new Date('2026-01-01T00:00:00Z')): AnalyticsSource {
  const half = { type: 'BinaryExpression', operator: '/', left: { type: 'Identifier', name: 'amount' }, right: { type: 'Literal', value: 2, raw: '2' } };
  return {
    id: '01a2051d-6376-7344-af07-949d8d334eab',
    name: 'Orders',
    servingRelation,
    updatedAt,
    recordSchema: {
      name: 'orders',
      fields: {
        amount: { type: 'number', label: 'Amount', measure: true },
        city: { type: 'string', label: 'City' },
        qty: { type: 'number', label: 'Quantity' },
        at: { type: 'date', label: 'At', timeDimension: true },
      },
      calculatedFields: [
        { id: '01a2051d-0000-7000-8000-000000000001', name: 'half', label: 'Half', type: 'number', expression: half, formula: 'amount / 2', measure: true },
        {
          id: '01a2051d-0000-7000-8000-000000000002',
          name: 'halfRow',
          label: 'Half row',
          type: 'number',
          expression: half,
          formula: 'amount / 2',
          measure: false,
        },
      ],
    },
    windowDimensions: [
      {
        id: '01a2051d-0000-7000-8000-000000000003',
        name: 'rank',
        label: 'Rank',
        function: 'row_number',
        partitionBy: ['city'],
        orderBy: 'amount',
        direction: 'desc',
        semantic: 'lifetime',
      },
    ],
  } as unknown as AnalyticsSource;
}

/** A layer over `databaseUrl` whose every organization has `sources`. */
export function layerOver(databaseUrl: string, sources: AnalyticsSource[], poolSize = 2): SemanticLayer {
  return createSemanticLayer({ databaseUrl, poolSize, statementTimeoutMs: 60_000, logger: createLogger('silent'), loadSources: async () => sources });
}

/** A layer whose database is never reached: meta and SQL need only the model. */
export const offlineLayer = (sources: AnalyticsSource[]) => layerOver('postgres://unused@127.0.0.1:1/none', sources, 1);
