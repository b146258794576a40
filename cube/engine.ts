import { createHash } from 'node:crypto';
import { CubejsServerCore } from '@cubejs-backend/server-core';
import { PostgresDriver } from '@cubejs-backend/postgres-driver';
import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import type { Logger } from '../src/logging/logger';
import { cubeModel } from './model';
import { applyCubeNativeWorkarounds } from './native-workarounds';
import { markRefusals } from './query-refusals';
import { applyCubeQueueWorkaround } from './queue-workaround';

/** What Cube knows of the caller: its organization and the version of that organization's model. */
export interface CubeContext {
  organizationId: string;
  /** Changes whenever a data source of the organization changes; Cube recompiles the model then. */
  modelVersion: string;
}

/** A query as Cube's REST API takes it. */
export type CubeQuery = Record<string, unknown>;

/** Cube's answer to a load, as its REST API gives it. */
export interface CubeLoadAnswer {
  data: Array<Record<string, unknown>>;
  annotation: Record<string, unknown>;
  query: CubeQuery;
}

/** A measure or dimension as Cube's meta lists it: the fields this service reads. */
export interface CubeMetaMember {
  name: string;
  title: string;
  shortTitle?: string;
  type: string;
  isVisible?: boolean;
  meta?: Record<string, unknown>;
}

/** A cube as Cube's meta lists it: the fields this service reads. */
export interface CubeMetaCube {
  name: string;
  title?: string;
  measures: CubeMetaMember[];
  dimensions: CubeMetaMember[];
}

/**
 * The gateway methods the engine calls. Each answers through the request's `res`
 * callback, not its promise; the package's own request types are narrower per
 * method than one `call` can name, so only this shape is relied on.
 */
type Gateway = Record<'load' | 'sql' | 'meta', (request: Record<string, unknown>) => Promise<void>>;

/** Asking again this long past the statement timeout, the query has surely ended (a short wait in Cube's queue included). */
const CONTINUE_WAIT_MARGIN_MS = 60_000;

/**
 * A failure Cube answered. `refused`: Cube refused the query itself, while
 * reading it or building its SQL (query-refusals.ts), so the caller can fix
 * it; otherwise the failure came from running it (the database: a timeout, a
 * lost connection) or from Cube's internals.
 */
export class CubeQueryError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** The model version of a set of sources: a hash of their ids and last changes. */
export function modelVersion(sources: AnalyticsSource[]): string {
  const hash = createHash('sha256');
  for (const s of sources) hash.update(`${s.id}:${s.updatedAt.getTime()};`);
  return hash.digest('base64url');
}

export interface CubeEngineOptions {
  databaseUrl: string;
  /** Connections of Cube's pool; its queue runs as many queries at once. */
  poolSize: number;
  /** Every statement on Cube's pool ends after this. */
  statementTimeoutMs: number;
  logger: Logger;
  /** The organization's data sources, read when Cube compiles its model. */
  loadSources: (organizationId: string) => Promise<AnalyticsSource[]>;
}

/**
 * The driver's pg pool. The driver runs `SET statement_timeout` from
 * `executionTimeout` (seconds; 10 minutes when unset) on every connection
 * before each query, so that is where the bound goes; the pg startup
 * parameter covers the connection test it runs before that.
 */
function analyticsDriver(options: CubeEngineOptions): PostgresDriver {
  return new PostgresDriver({
    connectionString: options.databaseUrl,
    maxPoolSize: options.poolSize,
    executionTimeout: options.statementTimeoutMs / 1000,
    statement_timeout: options.statementTimeoutMs,
    application_name: 'flowbase-analytics',
  } as never);
}

/**
 * Cube embedded as a library: it compiles one model per organization (its
 * app id), from that organization's data sources only, so a query can reach
 * no other organization's cubes and never learns their names. It generates
 * the SQL and runs it on its own small pool, caching results in memory.
 */
export class CubeEngine {
  private readonly core: CubejsServerCore;
  private readonly gateway: Gateway;
  private driver?: PostgresDriver;

  constructor(private readonly options: CubeEngineOptions) {
    applyCubeNativeWorkarounds();
    applyCubeQueueWorkaround();
    const log = options.logger.child({ component: 'cube' });
    this.core = new CubejsServerCore({
      apiSecret: 'unused: the service authenticates callers itself',
      devServer: false,
      telemetry: false,
      scheduledRefreshTimer: false,
      dbType: 'postgres',
      cacheAndQueueDriver: 'memory',
      // `ungrouped: true` exports raw rows; the serving relation's key is not a member the caller names.
      allowUngroupedWithoutPrimaryKey: true,
      // Cube logs whole queries (with filter values) at info; only its errors reach the service log.
      logger: (message: string, params: Record<string, unknown>) => {
        if (/error/i.test(message)) log.warn({ event: message, error: params?.error }, 'cube');
      },
      // One driver (one pool) for every organization; Cube may ask for it many times.
      driverFactory: () => (this.driver ??= analyticsDriver(options)) as never,
      contextToAppId: ({ securityContext }: { securityContext: CubeContext }) => `org_${securityContext.organizationId}`,
      // One orchestrator (one queue, one result cache) for everyone: fairness between organizations comes from the
      // scheduler in front of the engine (src/analytics), so the queue only has to run as many queries as the pool has connections.
      contextToOrchestratorId: () => 'default',
      orchestratorOptions: { queryCacheOptions: { queueOptions: { concurrency: options.poolSize } } },
      schemaVersion: ({ securityContext }: { securityContext: CubeContext }) => securityContext.modelVersion,
      repositoryFactory: ({ securityContext }: { securityContext: CubeContext }) => ({
        dataSchemaFiles: async () =>
          (await options.loadSources(securityContext.organizationId)).map((s) => ({ fileName: `${s.servingRelation}.js`, content: cubeModel(s) })),
      }),
    } as never);
    this.gateway = (this.core as unknown as { apiGateway(): Gateway }).apiGateway();
    markRefusals(this.gateway as never, (error) => log.warn({ error }, 'cube could not build SQL for a query; refused as the query'));
  }

  /**
   * Runs the query: `{query, data, annotation, ...}` as Cube's REST API
   * answers it. The promise settles when the query has: a caller that holds
   * a slot while awaiting it holds it for the whole query.
   */
  load(context: CubeContext, query: CubeQuery): Promise<CubeLoadAnswer> {
    // renewQuery: a stale refresh key is renewed before answering, not in the background, so a cached result is never older than REFRESH_EVERY.
    return this.untilDone(() => this.call<CubeLoadAnswer>('load', context, { query: { ...query, renewQuery: true } })).then((answer) => {
      delete answer.query?.renewQuery;
      return answer;
    });
  }

  /** The SQL and parameters Cube would run, without running it (no row limit unless the query has one). */
  sql(context: CubeContext, query: CubeQuery): Promise<{ sql: [string, unknown[]]; aliasNameToMember: Record<string, string> }> {
    return this.call<{ sql: { sql: [string, unknown[]]; aliasNameToMember: Record<string, string> } }>('sql', context, {
      query,
      disableLimitEnforcing: true,
    }).then((r) => r.sql);
  }

  meta(context: CubeContext): Promise<{ cubes: CubeMetaCube[] }> {
    return this.call('meta', context, {});
  }

  async shutdown(): Promise<void> {
    await this.core.shutdown();
    await this.driver?.release();
  }

  /**
   * Cube answers "Continue wait" when a query runs past its 5-second wait; the
   * query keeps running in its queue, and asking again attaches to it. The
   * statement timeout ends it, so asking stops only well after that.
   */
  private async untilDone<T>(attempt: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + this.options.statementTimeoutMs + CONTINUE_WAIT_MARGIN_MS;
    for (;;) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof CubeQueryError && err.message === 'Continue wait') || Date.now() >= giveUpAt) throw err;
      }
    }
  }

  /** The gateway answers through a `res` callback; errors come as `{error}` with a status, and refusals with `type: 'UserError'`. */
  private call<T>(method: keyof Gateway, context: CubeContext, args: Record<string, unknown>): Promise<T> {
    return new Promise((resolve, reject) => {
      void this.gateway[method]({
        ...args,
        context: { securityContext: context, requestId: `${context.organizationId}-${Date.now()}` },
        res: (answer: { error?: unknown; type?: unknown }, meta?: { status?: number }) => {
          if (answer && answer.error !== undefined) {
            reject(new CubeQueryError(String(answer.error).replace(/^Error: /, ''), meta?.status ?? 500, answer.type === 'UserError'));
          } else resolve(answer as T);
        },
      });
    });
  }
}
