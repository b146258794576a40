import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import type { Logger } from '../src/logging/logger';

// The interface of the one door to Cube (semantic-layer.ts re-exports it): a module of its own, so the engine
// that implements it and the door that builds the engine import it without importing each other.

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
  /** Loads Cube now rather than on the first query (the API calls it once it listens). */
  preload(): Promise<void>;
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
