import { createHash } from 'node:crypto';
import { dateParser } from '@cubejs-backend/api-gateway/dist/src/dateParser';
import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import { CubeEngine } from './engine';
import type { SemanticLayer, SemanticLayerOptions } from './semantic-layer.types';

/**
 * The one door to Cube: everything outside cube/ that needs the semantic
 * layer imports this module and nothing else of cube/ or @cubejs-backend
 * (eslint.config.mjs). The interface is the service's own; which Cube runs
 * behind it, and how it is patched to run without its native module, stays
 * in cube/. The contract it keeps is pinned by cube/semantic-layer.test.ts
 * (meta, SQL) and test/cube-semantic-layer.integration.test.ts (results,
 * cache, queue).
 */

export { CubeQueryError, UNEXPLAINED_REFUSAL } from './query-refusals';

export type {
  CubeContext,
  CubeLoadAnswer,
  CubeMetaCube,
  CubeMetaMember,
  CubeQuery,
  CubeSqlAnswer,
  SemanticLayer,
  SemanticLayerOptions,
} from './semantic-layer.types';

/** The semantic layer: Cube embedded as a library (cube/engine.ts), one model per organization. */
export function createSemanticLayer(options: SemanticLayerOptions): SemanticLayer {
  return new CubeEngine(options);
}

/** The model version of a set of sources: a hash of their ids and last changes. */
export function modelVersion(sources: AnalyticsSource[]): string {
  const hash = createHash('sha256');
  for (const s of sources) hash.update(`${s.id}:${s.updatedAt.getTime()};`);
  return hash.digest('base64url');
}

/** The granularities Cube 0.35 accepts on a time dimension (api-gateway query.js). */
export const CUBE_GRANULARITIES = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

/**
 * A `dateRange` phrase as Cube's own parser resolves it when it reads a query
 * (local date-times in `timezone`; `now` is the clock of relative phrases).
 * Throws as Cube does: a UserError "Can't parse date: '…'", or a TypeError for some phrases.
 */
export function parseCubeDateRange(phrase: string, timezone: string, now: Date): unknown {
  return dateParser(phrase, timezone, now);
}
