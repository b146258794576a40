import bytes from 'bytes';
import path from 'node:path';
import { z } from 'zod';
import { parsePriceOverrides, type PriceEntry } from '../llm-usage/price-table';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * Every environment variable the service reads. Unset optional ones mean
 * "embedded mode": the service starts its own PostgreSQL and Temporal dev
 * server and keeps their data under DATA_DIR.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Unset: no metrics endpoint. Its own port, so /metrics is never on the public API port (docs/operations.md#metrics). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  /** Unset: the Temporal SDK's own metrics are not exported. Its core serves them itself, on this port of METRICS_HOST. */
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default(path.resolve(process.cwd(), '.data')),
  /** The console's built files (scripts/run.mjs builds them at install time). */
  CONSOLE_DIR: z.string().default('console/dist'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  // Unset: the ports recorded in DATA_DIR, else chosen at first start (EMBEDDED_PORT_DEFAULTS when free); see src/infra/embedded-ports.ts.
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d+$/, 'expected host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('flowbase'),
  // A workflow bundle built beforehand (the test suite builds one per run); unset: dist's prebuilt one, else workflows/ bundled at start.
  TEMPORAL_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  EMBEDDED_TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  EMBEDDED_TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  EMBEDDED_TEMPORAL_JOURNAL: z.enum(['wal', 'wal-normal', 'rollback']).default('wal'),
  // Where an execution links to its run in the Temporal Web UI; unset: the embedded dev server's UI, or no link with TEMPORAL_ADDRESS set.
  TEMPORAL_UI_URL: z.url({ protocol: /^https?$/ }).optional(),
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  MASTER_KEY_PREVIOUS: z
    .string()
    .refine((v) => v.split(',').every((k) => Buffer.from(k.trim(), 'base64').length === 32), 'must be a comma-separated list of 32-byte base64 keys')
    .optional(),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 1mb')
    .default('1mb'),
  DATA_STORE_IMPORT_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb|gb)$/i, 'expected a size such as 1gb')
    .default('1gb'),
  DATA_STORE_PURGE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  PUBLIC_BASE_URL: z.url().optional(),
  WEBHOOK_BASE_URL: z.url().optional(),
  RUN_WORKER: booleanFlag.default(true),
  WEBHOOK_SYNC_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  // The body becomes the run's input in Temporal history, where one payload may not pass 2 MB.
  WEBHOOK_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 1mb')
    .refine((v) => bytes.parse(v)! <= 1.5 * 1024 * 1024, "at most 1.5mb: the body travels in the run's Temporal input (2 MB limit)")
    .default('1mb'),
  HTTP_OUTBOUND_ALLOW: z
    .string()
    .regex(/^[^\s]+(,[^\s]+)*$/, 'expected a comma-separated list such as 10.0.0.0/8,127.0.0.1:8080')
    .optional(),
  HTTP_STEP_MAX_RESPONSE: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 10mb')
    .default('10mb'),
  LLM_OPENAI_BASE_URL: z.url().optional(),
  LLM_ANTHROPIC_BASE_URL: z.url().optional(),
  // Corrections and additions to the LLM price table (src/llm-usage/price-table.ts): a JSON array of dated entries.
  LLM_PRICES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return v ? parsePriceOverrides(v) : [];
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  // Vendor APIs the data feeds and the proxy call; tests point them at local stubs (and allow those in HTTP_OUTBOUND_ALLOW).
  TWILIO_API_BASE_URL: z.url().default('https://api.twilio.com'),
  GITHUB_API_BASE_URL: z.url().default('https://api.github.com'),
  HUBSPOT_API_BASE_URL: z.url().default('https://api.hubapi.com'),
  // Where OAuth connections' access tokens are refreshed (src/connections/oauth-tokens.ts); tests point them at a local stub too.
  GITHUB_OAUTH_TOKEN_URL: z.url().default('https://github.com/login/oauth/access_token'),
  HUBSPOT_OAUTH_TOKEN_URL: z.url().default('https://api.hubapi.com/oauth/v1/token'),
  // The media proxy (GET /dashboards/proxy): streams open at once per organization, and how long an upstream may keep it waiting.
  PROXY_MAX_STREAMS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000).default(8),
  PROXY_MAX_STREAMS: z.coerce.number().int().min(1).max(10_000).default(256),
  PROXY_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  PROXY_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  FEED_SYNC_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  // How often the API looks for sync runs that stopped without recording their end (a terminated workflow), and how old a run must be.
  FEED_SYNC_RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  FEED_SYNC_RECONCILE_AFTER_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  // How long POST .../sync waits for a run that has recorded its end to close (or a queued one to begin) before answering 409.
  FEED_SYNC_START_WAIT_SECONDS: z.coerce.number().int().min(1).max(120).default(10),
  SCHEDULE_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  // Executions and their step records older than this are deleted; unset, each plan's own period (src/organizations/plans.ts).
  EXECUTION_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).optional(),
  EXECUTION_PRUNE_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  EXECUTION_PRUNE_BATCH_SIZE: z.coerce.number().int().min(10).max(100_000).default(1_000),
  // At least two: analytics keeps one connection for the organizations another one is using the rest of (src/analytics).
  ANALYTICS_POOL_SIZE: z.coerce.number().int().min(2).max(100).default(4),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  DATABASE_LONG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(1_800_000),
  ANALYTICS_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  ANALYTICS_EXPORT_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(2),
  ANALYTICS_EXPORT_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  ANALYTICS_MAX_QUEUED_PER_ORGANIZATION: z.coerce.number().int().min(1).max(10_000).default(50),
  WEBHOOK_RATE_PER_TRIGGER: z.coerce.number().positive().max(100_000).default(100),
  WEBHOOK_BURST_PER_TRIGGER: z.coerce.number().int().min(1).max(1_000_000).default(200),
  WEBHOOK_RATE_PER_ORGANIZATION: z.coerce.number().positive().max(100_000).default(300),
  WEBHOOK_BURST_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000_000).default(600),
  WEBHOOK_RUNS_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(32),
  WEBHOOK_ADMISSION_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
});

export type Env = z.input<typeof envSchema>;

/** The servers embedded mode starts that listen on a port of their own. */
export type EmbeddedServer = 'postgres' | 'temporal' | 'temporalUi';

/** The setting that fixes each embedded server's port. */
export const EMBEDDED_PORT_SETTINGS = {
  postgres: 'EMBEDDED_POSTGRES_PORT',
  temporal: 'EMBEDDED_TEMPORAL_PORT',
  temporalUi: 'EMBEDDED_TEMPORAL_UI_PORT',
} as const satisfies Record<EmbeddedServer, keyof Env>;

/** The ports a data directory's embedded servers take at their first start when these are free (the README's URLs). */
export const EMBEDDED_PORT_DEFAULTS: Record<EmbeddedServer, number> = { postgres: 5433, temporal: 7233, temporalUi: 8233 };

export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  /** The Prometheus endpoints: Flowbase's own (`port`) and the Temporal worker's core (`temporalPort`); none when unset. */
  metrics: { host: string; port?: number; temporalPort?: number };
  http: {
    host: string;
    port: number;
    bodyLimit: string;
    publicBaseUrl?: string;
    webhookBaseUrl: string;
    /**
     * The host (`name[:port]`) of WEBHOOK_BASE_URL when it differs from the
     * console's: webhook and resume answers are then served there only, and
     * nothing else is (src/http/answer-host.ts).
     */
    answersHost?: string;
  };
  logLevel: string;
  dataDir: string;
  console: { assetsDir: string };
  /** Embedded servers' ports set explicitly (EMBEDDED_PORT_SETTINGS); the others are DATA_DIR's own (src/infra/embedded-ports.ts). */
  embeddedPorts: Partial<Record<EmbeddedServer, number>>;
  database: {
    url?: string;
    /** Every statement of the service's own pool ends after this. */
    statementTimeoutMs: number;
    /** Statements that legitimately run long (migrations, serving-relation builds, bulk imports) end after this. */
    longStatementTimeoutMs: number;
  };
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    /** A prebuilt workflow bundle's path (TEMPORAL_WORKFLOW_BUNDLE); see createWorker. */
    workflowBundle?: string;
    /**
     * The Temporal Web UI's base URL (no trailing slash) that executions link to: TEMPORAL_UI_URL. Unset, the
     * embedded dev server's, once its port is known (src/main.ts); beside a real cluster none, and no link.
     */
    uiUrl?: string;
    /** How the embedded dev server's SQLite file commits (SQLITE_JOURNALS in infra/temporal-dev-server.ts). */
    embeddedJournal: 'wal' | 'wal-normal' | 'rollback';
  };
  crypto: { masterKey?: string; previousMasterKeys: string[] };
  dataStores: { importLimitBytes: number; purgeIntervalSeconds: number };
  schedules: {
    /** The shortest interval a schedule trigger may have: a tenant's every-second schedule would hold the workers for everyone. */
    minIntervalSeconds: number;
  };
  retention: {
    /** Days an execution is kept, whatever the organization's plan; undefined: each plan's own. */
    executionDays?: number;
    /** How often the pruning schedule fires, and how many executions one of its statements deletes at most. */
    pruneIntervalMinutes: number;
    batchSize: number;
  };
  webhooks: {
    syncTimeoutMs: number;
    bodyLimit: string;
    /** Token buckets: `rate` calls per second refill, `burst` calls at once. */
    rateLimits: { perTrigger: RateLimit; perOrganization: RateLimit };
    /** Webhook runs one API process has in flight at most, and how long a call waits for room before it is refused (503). */
    admission: { runsInFlight: number; maxWaitMs: number };
  };
  steps: {
    /** Non-public addresses `core.http` may reach anyway: IPs, CIDRs, or IP:port. */
    httpAllowList: string[];
    httpMaxResponseBytes: number;
    llmBaseUrls: { openai?: string; anthropic?: string };
    /** LLM_PRICES: entries replacing the price table's for their provider and model, or adding models. */
    llmPrices: PriceEntry[];
  };
  vendors: {
    /** Base URLs of the vendor APIs (no trailing slash), keyed by vendor. */
    baseUrls: VendorBaseUrls;
    /** The OAuth token endpoints (full URLs) that refresh an OAuth connection's access token, keyed by vendor. */
    tokenUrls: OAuthTokenUrls;
    /** A data feed's sync interval when the toggle names none. */
    defaultSyncIntervalMinutes: number;
    /** Sync runs that stopped without recording their end: looked for every `intervalSeconds`, among runs begun more than `afterSeconds` ago. */
    syncReconcile: { intervalSeconds: number; afterSeconds: number };
    /** How long a manual sync waits for an open run its source no longer shows running (it has recorded its end) to close. */
    syncStartWaitMs: number;
  };
  proxy: {
    /** Media streams one organization may have open at once; one more is 429. */
    maxStreamsPerOrganization: number;
    /** Media streams open at once, all organizations together. */
    maxStreams: number;
    /** Until the upstream's status and headers arrive, redirects included. */
    headersTimeoutMs: number;
    /** An upstream body that sends nothing this long (while the caller reads) is cut off. */
    idleTimeoutMs: number;
  };
  analytics: {
    /** Connections Cube may hold for analytics queries (beside the service's own pool). */
    poolSize: number;
    /** Analytics queries and CSV exports end after this (longer than the service's own timeout). */
    statementTimeoutMs: number;
    /** Connections CSV exports may hold (their own pool: a slow reader never holds one of the API's). */
    exportPoolSize: number;
    /** An export whose reader takes nothing for this long is cut off. */
    exportIdleTimeoutMs: number;
    /** Queries one organization may have waiting; past it, 429. */
    maxQueuedPerOrganization: number;
  };
  runWorker: boolean;
}

/** The vendors whose APIs data feeds and proxy references reach. */
export const VENDORS = ['twilio', 'github', 'hubspot'] as const;
export type Vendor = (typeof VENDORS)[number];
export type VendorBaseUrls = Record<Vendor, string>;

/** The vendors whose OAuth access tokens the service refreshes (the connection types are in src/connections/oauth-token-endpoints.ts). */
export const OAUTH_VENDORS = ['github', 'hubspot'] as const satisfies readonly Vendor[];
export type OAuthVendor = (typeof OAUTH_VENDORS)[number];
export type OAuthTokenUrls = Record<OAuthVendor, string>;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export interface RateLimit {
  rate: number;
  burst: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses and validates configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && (!e.DATABASE_URL || !e.TEMPORAL_ADDRESS || !e.MASTER_KEY)) {
    throw new ConfigError(
      ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MASTER_KEY']
        .filter((k) => !e[k as keyof typeof e])
        .map((k) => `${k}: required when NODE_ENV=production (embedded mode is for development)`),
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    metrics: { host: e.METRICS_HOST, port: e.METRICS_PORT, temporalPort: e.TEMPORAL_METRICS_PORT },
    http: {
      host: e.HOST,
      port: e.PORT,
      bodyLimit: e.BODY_LIMIT,
      publicBaseUrl: e.PUBLIC_BASE_URL,
      webhookBaseUrl: e.WEBHOOK_BASE_URL ?? e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`,
      ...answersHost(e.WEBHOOK_BASE_URL, e.PUBLIC_BASE_URL),
    },
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.DATA_DIR),
    console: { assetsDir: path.resolve(e.CONSOLE_DIR) },
    embeddedPorts: Object.fromEntries(
      Object.entries(EMBEDDED_PORT_SETTINGS).flatMap(([server, setting]) => (e[setting] === undefined ? [] : [[server, e[setting]]])),
    ),
    database: {
      url: e.DATABASE_URL,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      longStatementTimeoutMs: e.DATABASE_LONG_STATEMENT_TIMEOUT_MS,
    },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      workflowBundle: e.TEMPORAL_WORKFLOW_BUNDLE ? path.resolve(e.TEMPORAL_WORKFLOW_BUNDLE) : undefined,
      uiUrl: e.TEMPORAL_UI_URL ? trimSlash(e.TEMPORAL_UI_URL) : undefined,
      embeddedJournal: e.EMBEDDED_TEMPORAL_JOURNAL,
    },
    crypto: {
      masterKey: e.MASTER_KEY,
      previousMasterKeys: e.MASTER_KEY_PREVIOUS ? e.MASTER_KEY_PREVIOUS.split(',').map((k) => k.trim()) : [],
    },
    dataStores: {
      importLimitBytes: bytes.parse(e.DATA_STORE_IMPORT_LIMIT)!,
      purgeIntervalSeconds: e.DATA_STORE_PURGE_INTERVAL_SECONDS,
    },
    schedules: { minIntervalSeconds: e.SCHEDULE_MIN_INTERVAL_SECONDS },
    retention: {
      executionDays: e.EXECUTION_RETENTION_DAYS,
      pruneIntervalMinutes: e.EXECUTION_PRUNE_INTERVAL_MINUTES,
      batchSize: e.EXECUTION_PRUNE_BATCH_SIZE,
    },
    webhooks: {
      syncTimeoutMs: e.WEBHOOK_SYNC_TIMEOUT_SECONDS * 1000,
      bodyLimit: e.WEBHOOK_BODY_LIMIT,
      rateLimits: {
        perTrigger: { rate: e.WEBHOOK_RATE_PER_TRIGGER, burst: e.WEBHOOK_BURST_PER_TRIGGER },
        perOrganization: { rate: e.WEBHOOK_RATE_PER_ORGANIZATION, burst: e.WEBHOOK_BURST_PER_ORGANIZATION },
      },
      admission: { runsInFlight: e.WEBHOOK_RUNS_IN_FLIGHT, maxWaitMs: e.WEBHOOK_ADMISSION_WAIT_MS },
    },
    steps: {
      httpAllowList: e.HTTP_OUTBOUND_ALLOW ? e.HTTP_OUTBOUND_ALLOW.split(',') : [],
      httpMaxResponseBytes: bytes.parse(e.HTTP_STEP_MAX_RESPONSE)!,
      llmBaseUrls: { openai: e.LLM_OPENAI_BASE_URL, anthropic: e.LLM_ANTHROPIC_BASE_URL },
      llmPrices: e.LLM_PRICES,
    },
    vendors: {
      baseUrls: { twilio: trimSlash(e.TWILIO_API_BASE_URL), github: trimSlash(e.GITHUB_API_BASE_URL), hubspot: trimSlash(e.HUBSPOT_API_BASE_URL) },
      tokenUrls: { github: e.GITHUB_OAUTH_TOKEN_URL, hubspot: e.HUBSPOT_OAUTH_TOKEN_URL },
      defaultSyncIntervalMinutes: e.FEED_SYNC_INTERVAL_MINUTES,
      syncReconcile: { intervalSeconds: e.FEED_SYNC_RECONCILE_INTERVAL_SECONDS, afterSeconds: e.FEED_SYNC_RECONCILE_AFTER_SECONDS },
      syncStartWaitMs: e.FEED_SYNC_START_WAIT_SECONDS * 1000,
    },
    proxy: {
      maxStreamsPerOrganization: e.PROXY_MAX_STREAMS_PER_ORGANIZATION,
      maxStreams: e.PROXY_MAX_STREAMS,
      headersTimeoutMs: e.PROXY_HEADERS_TIMEOUT_SECONDS * 1000,
      idleTimeoutMs: e.PROXY_IDLE_TIMEOUT_SECONDS * 1000,
    },
    analytics: {
      poolSize: e.ANALYTICS_POOL_SIZE,
      statementTimeoutMs: e.ANALYTICS_STATEMENT_TIMEOUT_MS,
      exportPoolSize: e.ANALYTICS_EXPORT_POOL_SIZE,
      exportIdleTimeoutMs: e.ANALYTICS_EXPORT_IDLE_TIMEOUT_SECONDS * 1000,
      maxQueuedPerOrganization: e.ANALYTICS_MAX_QUEUED_PER_ORGANIZATION,
    },
    runWorker: e.RUN_WORKER,
  };
}

/**
 * WEBHOOK_BASE_URL's host, when both base URLs are given and name different
 * hosts (see Config.http.answersHost). With only one given, one host serves
 * everything, as before: a deployment that set WEBHOOK_BASE_URL to its one
 * public URL keeps its console there.
 */
function answersHost(webhookBaseUrl: string | undefined, publicBaseUrl: string | undefined): { answersHost?: string } {
  if (!webhookBaseUrl || !publicBaseUrl) return {};
  const hooks = new URL(webhookBaseUrl).host.toLowerCase();
  return hooks === new URL(publicBaseUrl).host.toLowerCase() ? {} : { answersHost: hooks };
}
