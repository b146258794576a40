import { createHash } from 'node:crypto';
import { dateParser } from '@cubejs-backend/api-gateway/dist/src/dateParser';
import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import type { Logger } from '../src/logging/logger';
import { CubeEngine } from './engine';

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

/** What the layer knows of the caller: its organization and the version of that organization's model. */
export interface CubeContext {
  organizationId: string;
  /** Changes whenever a data source of the organization changes; the layer recompiles the model then. */
  modelVersion: string;
}

/** A query as Cube's REST API takes it. */
export type CubeQuery = Record<string, unknown>;

/** The answer to a load, as Cube's REST API gives it: rows keyed `cube.member` (`cube.member.granularity` for time dimensions). */
export interface CubeLoadAnswer {
  data: Array<Record<string, unknown>>;
  annotation: Record<string, unknown>;
  query: CubeQuery;
}

/** The SQL and parameters the layer would run for a query, and which member each column alias stands for. */
export interface CubeSqlAnswer {
  sql: [string, unknown[]];
  aliasNameToMember: Record<string, string>;
}

/** A measure or dimension as the meta lists it: the fields this service reads. */
export interface CubeMetaMember {
  name: string;
  title: string;
  shortTitle?: string;
  type: string;
  isVisible?: boolean;
  meta?: Record<string, unknown>;
}

/** A cube (one per data source) as the meta lists it: the fields this service reads. */
export interface CubeMetaCube {
  name: string;
  title?: string;
  measures: CubeMetaMember[];
  dimensions: CubeMetaMember[];
}

/** The semantic layer as the service uses it. Failures Cube answered are CubeQueryErrors. */
export interface SemanticLayer {
  /** The organization's compiled model: its cubes and their members. */
  meta(context: CubeContext): Promise<{ cubes: CubeMetaCube[] }>;
  /**
   * Runs the query (from the results cache when that is at most REFRESH_EVERY
   * old). Settles when the query has, however long it waits in the queue.
   */
  load(context: CubeContext, query: CubeQuery): Promise<CubeLoadAnswer>;
  /** The SQL the layer would run for the query, without running it (no row limit unless the query has one). */
  sql(context: CubeContext, query: CubeQuery): Promise<CubeSqlAnswer>;
  /** Ends the layer's queue and closes its pool. */
  shutdown(): Promise<void>;
}

export interface SemanticLayerOptions {
  databaseUrl: string;
  /** Connections of the layer's pool; its queue runs as many queries at once. */
  poolSize: number;
  /** Every statement on the layer's pool ends after this. */
  statementTimeoutMs: number;
  logger: Logger;
  /** The organization's data sources, read when the layer compiles its model. */
  loadSources: (organizationId: string) => Promise<AnalyticsSource[]>;
}

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
