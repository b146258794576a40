import { CubejsServerCore } from '@cubejs-backend/server-core';
import { PostgresDriver } from '@cubejs-backend/postgres-driver';
import { cubeModel } from './model';
import { applyCubeNativeWorkarounds } from './native-workarounds';
import { CubeQueryError, markRefusals } from './query-refusals';
import { applyCubeQueueWorkaround } from './queue-workaround';
import type { CubeContext, CubeLoadAnswer, CubeMetaCube, CubeQuery, CubeSqlAnswer, SemanticLayer, SemanticLayerOptions } from './semantic-layer.types';

export type CubeEngineOptions = SemanticLayerOptions;

/**
 * The gateway methods the engine calls. Each answers through the request's `res`
 * callback, not its promise; the package's own request types are narrower per
 * method than one `call` can name, so only this shape is relied on.
 */
type Gateway = Record<'load' | 'sql' | 'meta', (request: Record<string, unknown>) => Promise<void>>;

/** Asking again this long past the statement timeout, the query has surely ended (a short wait in Cube's queue included). */
const CONTINUE_WAIT_MARGIN_MS = 60_000;

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
export class CubeEngine implements SemanticLayer {
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
  sql(context: CubeContext, query: CubeQuery): Promise<CubeSqlAnswer> {
    return this.call<{ sql: CubeSqlAnswer }>('sql', context, {
      query,
      disableLimitEnforcing: true,
    }).then((r) => r.sql);
  }

  meta(context: CubeContext): Promise<{ cubes: CubeMetaCube[] }> {
    return this.call('meta', context, {});
  }

  async preload(): Promise<void> {}

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
