import { SharesRepository } from '../shares/shares.repository';
import { SharesService } from '../shares/shares.service';
import { DataFeedsService } from '../data-feeds/data-feeds.service';
import { FeedSchedules } from '../data-feeds/feed-schedules';
import { FeedSyncRuns } from '../data-feeds/feed-sync-runs';
import { FeedSyncHistory } from '../data-feeds/feed-sync-history';
import { FeedSyncReconciler } from '../data-feeds/feed-sync-reconciler';
import { FeedSyncsRepository } from '../data-feeds/feed-syncs.repository';
import type { Connection as TemporalConnection, Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { createSemanticLayer } from '../../cube/semantic-layer';
import { analyticsSlots } from '../analytics/analytics-limits';
import { AnalyticsService } from '../analytics/analytics.service';
import { CsvExporter } from '../analytics/csv-export';
import { DashboardsRepository } from '../dashboards/dashboards.repository';
import { DashboardsService } from '../dashboards/dashboards.service';
import { DashboardValidationService } from '../dashboards/dashboard-validation.service';
import { DashboardPdfService } from '../dashboards/dashboard-pdf.service';
import { DashboardReportService } from '../dashboards/dashboard-report.service';
import { DashboardExportService } from '../dashboards/dashboard-export.service';
import { DashboardImportService } from '../dashboards/dashboard-import.service';
import { PackagesRepository } from '../packages/packages.repository';
import { PackagesService } from '../packages/packages.service';
import type { InstallScopeFactory } from '../packages/install-scope';
import { WidgetDataService } from '../dashboards/widget-data.service';
import { WidgetSources } from '../dashboards/widget-sources';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { DataSourcesService } from '../data-sources/data-sources.service';
import { FeedSourcesService } from '../data-sources/feed-sources.service';
import { SourceMembersService } from '../data-sources/source-members.service';
import { AccessTokensRepository } from '../auth/access-tokens.repository';
import { ConsoleSessionsRepository } from '../auth/console-sessions.repository';
import { SessionsService } from '../auth/sessions.service';
import { PrincipalCache } from '../auth/principal-cache';
import type { Config, OAuthTokenUrls } from '../config/config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConnectionsService } from '../connections/connections.service';
import { ConnectionTypeCatalog } from '../connections/types/catalog';
import type { MasterKeyring } from '../crypto/master-keyring';
import { OrganizationKeys } from '../crypto/organization-keys';
import { OrganizationKeysRepository } from '../crypto/organization-keys.repository';
import { SecretBox } from '../crypto/secret-box';
import { CopyExport } from '../db/copy-export';
import { DatabaseDiagnostics } from '../db/database-diagnostics';
import { DataStoresRepository } from '../data-stores/data-stores.repository';
import { dataStoresService } from '../data-stores/data-stores.service';
import { RecordPurger } from '../data-stores/record-purger';
import { ExecutionsRepository } from '../executions/executions.repository';
import { ExecutionsService } from '../executions/executions.service';
import { DraftsRepository } from '../drafts/drafts.repository';
import { DraftsService } from '../drafts/drafts.service';
import { RunStarter } from '../executions/run-starter';
import { ReplayBulksRepository } from '../executions/replay-bulks.repository';
import { ReplayPlanner } from '../executions/replay-planner';
import { ReplaysRepository } from '../executions/replays.repository';
import { ReplaysService } from '../executions/replays.service';
import { StepOutputSeals } from '../executions/step-output-seals';
import { ReplyResolver } from '../executions/reply-resolver';
import { ExecutionWaitsRepository } from '../executions/execution-waits.repository';
import { RunEventsService } from '../executions/run-events.service';
import { resumeLinksFor } from '../executions/resume-links';
import { SealedResponseVault } from '../executions/sealed-response-vault';
import { SealedResponsesRepository } from '../executions/sealed-responses.repository';
import { createLiquid } from '../templates/template-engine';
import { executionRetentionDays } from '../organizations/plans';
import { SigningSecrets } from '../webhooks/signing-secrets';
import { WebhookHost } from '../webhooks/webhook-host';
import { WebhookAdmission } from '../webhooks/webhook-admission';
import { WebhookRateLimiter } from '../webhooks/webhook-rate-limiter';
import { WorkflowsRepository } from '../workflows/workflows.repository';
import { WorkflowsService } from '../workflows/workflows.service';
import { WebhookTriggersRepository } from '../webhooks/webhook-triggers.repository';
import { WebhookTriggersService } from '../webhooks/webhook-triggers.service';
import { ScheduleTriggersRepository } from '../schedules/schedule-triggers.repository';
import { ScheduleTriggersService } from '../schedules/schedule-triggers.service';
import { TriggerSchedules } from '../schedules/trigger-schedules';
import { EnvironmentsRepository } from '../environments/environments.repository';
import { EnvironmentsService } from '../environments/environments.service';
import type { Logger } from '../logging/logger';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { OrganizationsService } from '../organizations/organizations.service';
import { LlmPricesService } from '../organizations/llm-prices.service';
import { OrganizationPricesRepository } from '../llm-usage/organization-prices.repository';
import { InvitationsRepository } from '../organizations/invitations.repository';
import { InvitationsService } from '../organizations/invitations.service';
import { TokensService } from '../auth/tokens.service';
import { createOutboundHttp, type OutboundHttp } from '../outbound/outbound-http';
import { OAuthTokens } from '../connections/oauth-tokens';
import { TokenRefreshLeases } from '../connections/token-refresh-leases.repository';
import { ProxyService } from '../proxy/proxy.service';
import { AfterCommit, type Effects, runNow } from '../lib/after-commit';

export interface Infrastructure {
  config: Config;
  logger: Logger;
  db: DataSource;
  keyring: MasterKeyring;
  temporal: { connection: TemporalConnection; client: Client };
}

/**
 * The services that hold encrypted values; the API and the worker (which
 * decrypts during runs) both build them. `oauth`: where OAuth connections'
 * access tokens are refreshed, and the guarded client that asks.
 */
export function createSecretServices(db: DataSource, keyring: MasterKeyring, oauth: { tokenUrls: OAuthTokenUrls; http: Pick<OutboundHttp, 'request'> }) {
  const keys = new OrganizationKeys(new OrganizationKeysRepository(db), keyring);
  const box = new SecretBox(keys);
  const catalog = new ConnectionTypeCatalog();
  const connections = new ConnectionsService(new ConnectionsRepository(db), catalog, box);
  return {
    keys,
    box,
    catalog,
    environments: new EnvironmentsService(new EnvironmentsRepository(db), box),
    connections,
    /** Configs with a usable OAuth access token, refreshed once across processes (src/connections/oauth-tokens.ts). */
    oauthTokens: new OAuthTokens(connections, new TokenRefreshLeases(db), oauth.http, oauth.tokenUrls),
  };
}

/** Wires repositories and services once per process; tests build their own from their own infrastructure. */
export function createServices(infra: Infrastructure) {
  // The API's own guarded client (the worker builds its own): the media proxy streams through it, token refreshes ask through it. Closed on shutdown.
  const outboundHttp = createOutboundHttp({
    allowList: infra.config.steps.httpAllowList,
    maxResponseBytes: infra.config.steps.httpMaxResponseBytes,
    maxRedirects: 5,
  });
  const { keys, box, catalog, environments, connections, oauthTokens } = createSecretServices(infra.db, infra.keyring, {
    tokenUrls: infra.config.vendors.tokenUrls,
    http: outboundHttp,
  });
  const principalCache = new PrincipalCache((infra.db.options as PostgresConnectionOptions).url!, infra.logger);
  const tokens = new AccessTokensRepository(infra.db, () => principalCache.clear());
  const organizationsRepository = new OrganizationsRepository(infra.db);
  const tokenService = new TokensService(tokens, organizationsRepository);
  const consoleSessions = new ConsoleSessionsRepository(infra.db, () => principalCache.clear());
  const workflows = new WorkflowsService(new WorkflowsRepository(infra.db.manager), environments, createLiquid());
  const triggersRepository = new WebhookTriggersRepository(infra.db);
  const executionsRepository = new ExecutionsRepository(infra.db);
  const dataStores = dataStoresService(infra.db.manager);
  const sharesRepository = new SharesRepository(infra.db.manager);
  const dataSourcesRepository = new DataSourcesRepository(infra.db.manager);
  const dataSources = new DataSourcesService(dataSourcesRepository, dataStores, sharesRepository);
  const shares = new SharesService(sharesRepository, organizationsRepository, dataStores, dataSourcesRepository, infra.logger);
  // Cube compiles an organization's model from its sources when that organization's sources change.
  const databaseUrl = (infra.db.options as PostgresConnectionOptions).url!;
  const limits = infra.config.analytics;
  const cube = createSemanticLayer({
    databaseUrl,
    poolSize: limits.poolSize,
    statementTimeoutMs: limits.statementTimeoutMs,
    logger: infra.logger,
    loadSources: (organizationId) => dataSources.list(organizationId),
  });
  // Exports have a pool of their own: a slow reader never holds one of the API's connections.
  const csvExporter = new CsvExporter(
    new CopyExport({ databaseUrl, poolSize: limits.exportPoolSize, statementTimeoutMs: limits.statementTimeoutMs }),
    limits.exportIdleTimeoutMs,
  );
  const analytics = new AnalyticsService(dataSources, cube, csvExporter, analyticsSlots(limits), infra.logger);
  const dashboardsRepository = new DashboardsRepository(infra.db.manager);
  // The one resolver of a widget's source, for writes and for reads (rule 7.3's hook).
  const widgetSources = new WidgetSources(dataSources, dashboardsRepository);
  const dashboards = new DashboardsService(dashboardsRepository, widgetSources);
  // One instance for POST /dashboards/{id}/data and the report PDF, which runs its widgets the same way.
  const widgetData = new WidgetDataService(dashboardsRepository, widgetSources, analytics, infra.logger);
  const signingSecrets = new SigningSecrets(box);
  const runs = new RunStarter(infra.temporal.client, executionsRepository, infra.config.temporal.taskQueue, infra.logger);
  const replyResolver = new ReplyResolver(executionsRepository, new SealedResponseVault(new SealedResponsesRepository(infra.db), box));
  const syncTimeoutMs = infra.config.webhooks.syncTimeoutMs;
  const waits = new ExecutionWaitsRepository(infra.db);
  const replaysRepository = new ReplaysRepository(infra.db);
  const replayPlanner = new ReplayPlanner({
    executions: executionsRepository,
    replays: replaysRepository,
    seals: new StepOutputSeals(box),
    workflows: new WorkflowsRepository(infra.db.manager),
  });
  const executions = new ExecutionsService(
    executionsRepository,
    infra.temporal.client,
    runs,
    workflows,
    environments,
    syncTimeoutMs,
    { namespace: infra.config.temporal.namespace, uiUrl: infra.config.temporal.uiUrl },
    waits,
    replaysRepository,
  );
  const taskQueue = infra.config.temporal.taskQueue;
  const sourceMembers = new SourceMembersService(dataSources, dataSourcesRepository);
  const feedSources = new FeedSourcesService(dataSources, dataSourcesRepository);
  const feedSyncRuns = new FeedSyncRuns(infra.temporal.client, taskQueue, infra.config.vendors.syncStartWaitMs);
  const dataFeeds = new DataFeedsService(dataSources, feedSources, dataStores, connections, new FeedSchedules(infra.temporal.client, taskQueue), feedSyncRuns, {
    defaultSyncIntervalMinutes: infra.config.vendors.defaultSyncIntervalMinutes,
  });
  // The API reads the feed sync history; the worker's activities write it as runs begin and end.
  const feedSyncs = new FeedSyncsRepository(infra.db);
  const feedSyncHistory = new FeedSyncHistory(dataSources, feedSyncs);
  const triggerSchedules = new TriggerSchedules(infra.temporal.client, infra.config.temporal.taskQueue);
  const scheduleTriggers = new ScheduleTriggersService(
    new ScheduleTriggersRepository(infra.db.manager),
    workflows,
    environments,
    triggerSchedules,
    infra.config.schedules.minIntervalSeconds,
  );
  attachDeleteHooks({ workflows, dataSources }, { scheduleTriggers, dataFeeds }, runNow, infra.logger);
  return {
    ...infra,
    databaseDiagnostics: new DatabaseDiagnostics(infra.db),
    keys,
    box,
    tokens,
    /** Authenticated principals, dropped at once on any auth change (LISTEN auth_changed); start() it, close() it. */
    principalCache,
    catalog,
    tokenService,
    consoleSessions,
    sessions: new SessionsService(tokens, consoleSessions),
    organizations: new OrganizationsService(organizationsRepository, tokenService, keys, shares, () => principalCache.clear()),
    llmPrices: new LlmPricesService(new OrganizationPricesRepository(infra.db), infra.config.steps.llmPrices),
    invitations: new InvitationsService(organizationsRepository, new InvitationsRepository(infra.db), tokenService),
    connections,
    oauthTokens,
    environments,
    workflows,
    webhookTriggers: new WebhookTriggersService(triggersRepository, workflows, signingSecrets),
    scheduleTriggers,
    /** Starts runs; a worker in this process attaches to it (attachWorker) for eager starts and local answers. */
    runs,
    webhookHost: new WebhookHost(
      triggersRepository,
      environments,
      new WebhookRateLimiter(infra.config.webhooks.rateLimits),
      new WebhookAdmission(infra.config.webhooks.admission),
      runs,
      replyResolver,
      executionsRepository,
      signingSecrets,
      syncTimeoutMs,
      executionRetentionDays(infra.config.retention.executionDays),
    ),
    executionsRepository,
    executions,
    drafts: new DraftsService(new DraftsRepository(infra.db), workflows, executions, executionsRepository, replayPlanner, replaysRepository, environments),
    /** Replays from a step, one run or a bulk (the bulk's workflow runs on the worker). */
    replays: new ReplaysService(replayPlanner, runs, new ReplayBulksRepository(infra.db), workflows, {
      client: infra.temporal.client,
      taskQueue: infra.config.temporal.taskQueue,
    }),
    runEvents: new RunEventsService(infra.temporal.client, executionsRepository, waits, replyResolver, syncTimeoutMs),
    /** The resume links runs make (the worker's activities build the same from the same key), for operators' tools and tests. */
    resumeLinks: resumeLinksFor(infra.keyring, infra.config.http.webhookBaseUrl),
    dataStores,
    dataSources,
    sourceMembers,
    feedSources,
    dataFeeds,
    feedSyncHistory,
    /** Ends sync runs that stopped without recording their end (a terminated workflow); start() it, stop() it. */
    feedSyncReconciler: new FeedSyncReconciler(feedSyncs, feedSyncRuns, infra.logger, infra.config.vendors.syncReconcile),
    shares,
    cube,
    csvExporter,
    analytics,
    dashboardsRepository,
    widgetSources,
    dashboards,
    widgetData,
    dashboardValidation: new DashboardValidationService(dataSources, analytics, dashboardsRepository),
    dashboardPdf: new DashboardPdfService(dashboards),
    dashboardReport: new DashboardReportService(dashboards, widgetData),
    dashboardExport: new DashboardExportService(dashboardsRepository, dataSources),
    dashboardImport: new DashboardImportService(dashboardsRepository, widgetSources),
    packages: new PackagesService(
      new PackagesRepository(infra.db.manager),
      packageInstallScope({
        environments,
        triggerSchedules,
        dataFeeds,
        minScheduleIntervalSeconds: infra.config.schedules.minIntervalSeconds,
        logger: infra.logger,
      }),
    ),
    outboundHttp,
    proxy: new ProxyService(connections, outboundHttp, infra.config.vendors.baseUrls, infra.config.proxy, infra.logger),
    recordPurger: new RecordPurger(new DataStoresRepository(infra.db.manager), infra.logger, infra.config.dataStores.purgeIntervalSeconds),
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * What deleting a workflow or a data source does outside the database: a
 * workflow's schedule triggers lose their Temporal Schedules (read before
 * its rows go, which takes the triggers with them), a feed source its sync
 * schedule. The one wiring of these hooks, for the process's own services and
 * for every package install scope alike, so an uninstall deletes what DELETE
 * /workflows/{id} and DELETE /dashboards/data-sources/{id} delete. `effects`
 * says when the Temporal calls run: at once on the pool (runNow), after
 * COMMIT in an install's transaction (AfterCommit), so a rolled-back
 * uninstall leaves every schedule in place.
 */
function attachDeleteHooks(
  on: { workflows: WorkflowsService; dataSources: DataSourcesService },
  by: { scheduleTriggers: ScheduleTriggersService; dataFeeds: DataFeedsService },
  effects: Effects,
  logger: Logger,
): void {
  on.workflows.beforeDelete((organizationId, workflowId) => by.scheduleTriggers.deleteSchedulesOfWorkflow(organizationId, workflowId, effects));
  on.dataSources.onDeleted((source) => effects(() => by.dataFeeds.forget(source)), logger);
}

/**
 * What package installs write through: the domains' own services and
 * repositories, built over the install transaction's EntityManager
 * (PackagesRepository.transaction; install-scope.ts says why over it), so one
 * install commits or rolls back whole, with the process's delete hooks
 * (attachDeleteHooks), whose Temporal calls wait for the commit. Environments
 * are only read (a step's environment by name), through the process's own
 * service; the Temporal clients (trigger and feed schedules) are the
 * process's too.
 */
function packageInstallScope(shared: {
  environments: EnvironmentsService;
  triggerSchedules: TriggerSchedules;
  dataFeeds: DataFeedsService;
  minScheduleIntervalSeconds: number;
  logger: Logger;
}): InstallScopeFactory {
  const liquid = createLiquid();
  return (manager) => {
    const stores = dataStoresService(manager);
    const sourcesRepository = new DataSourcesRepository(manager);
    const dataSources = new DataSourcesService(sourcesRepository, stores, new SharesRepository(manager));
    const workflows = new WorkflowsService(new WorkflowsRepository(manager), shared.environments, liquid);
    const scheduleTriggers = new ScheduleTriggersService(
      new ScheduleTriggersRepository(manager),
      workflows,
      shared.environments,
      shared.triggerSchedules,
      shared.minScheduleIntervalSeconds,
    );
    const afterCommit = new AfterCommit(shared.logger);
    attachDeleteHooks({ workflows, dataSources }, { scheduleTriggers, dataFeeds: shared.dataFeeds }, afterCommit.defer, shared.logger);
    return {
      packages: new PackagesRepository(manager),
      workflows,
      dataStores: stores,
      dataSources,
      sourceMembers: new SourceMembersService(dataSources, sourcesRepository),
      dashboards: new DashboardsRepository(manager),
      afterCommit,
    };
  };
}
