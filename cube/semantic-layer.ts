import { createHash } from 'node:crypto';
import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
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

/**
 * The semantic layer: Cube embedded as a library (cube/engine.ts), one model per organization. Cube's packages take
 * seconds to load, so they load on the layer's first call (or `preload()`), not when the process starts: a worker, a
 * CLI or a test that never queries analytics does not pay for them.
 */
export function createSemanticLayer(options: SemanticLayerOptions): SemanticLayer {
  let engine: Promise<SemanticLayer> | undefined;
  const loaded = () => (engine ??= import('./engine.js').then(({ CubeEngine }) => new CubeEngine(options)));
  return {
    preload: async () => {
      await loaded();
    },
    meta: async (context) => (await loaded()).meta(context),
    load: async (context, query) => (await loaded()).load(context, query),
    sql: async (context, query) => (await loaded()).sql(context, query),
    shutdown: async () => {
      if (engine) await (await engine).shutdown();
    },
  };
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
  // Loaded on first use, like the engine: Cube's gateway takes most of a second to load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cubeDateParser ??= (require('@cubejs-backend/api-gateway/dist/src/dateParser') as typeof import('@cubejs-backend/api-gateway/dist/src/dateParser'))
    .dateParser;
  return cubeDateParser(phrase, timezone, now);
}
let cubeDateParser: typeof import('@cubejs-backend/api-gateway/dist/src/dateParser').dateParser | undefined;
