import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import type { ActivityDeps } from '../../activities/deps';
import { createOutboundHttp } from '../outbound/outbound-http';
import { StepError } from '../../activities/steps/step-errors';
import { OAuthRefreshRefused, OAuthRefreshUnavailable } from '../connections/oauth-errors';
import type { ResolvedConnection, SecretSources } from '../../activities/steps/step-scope';
import type { Connection } from '../connections/connection.entity';
import type { Config } from '../config/config';
import type { MasterKeyring } from '../crypto/master-keyring';
import { DatabaseDiagnostics } from '../db/database-diagnostics';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { DataSourcesService } from '../data-sources/data-sources.service';
import { FeedSourcesService } from '../data-sources/feed-sources.service';
import { FeedSyncsRepository } from '../data-feeds/feed-syncs.repository';
import { ListingDeletionsRepository } from '../data-feeds/listing-deletions.repository';
import { dataStoresService, type DataStoresService } from '../data-stores/data-stores.service';
import { NotFoundError } from '../errors/errors';
import { SharesRepository } from '../shares/shares.repository';
import { SealedResponsesRepository } from '../executions/sealed-responses.repository';
import { ExecutionsRepository } from '../executions/executions.repository';
import { ExecutionWaitsRepository } from '../executions/execution-waits.repository';
import { ReplayBulksRepository } from '../executions/replay-bulks.repository';
import { ReplayPlanner } from '../executions/replay-planner';
import { ReplaysRepository } from '../executions/replays.repository';
import { resumeLinksFor } from '../executions/resume-links';
import { LoopItemsRepository } from '../executions/loop-items.repository';
import { WorkflowsRepository } from '../workflows/workflows.repository';
import { ScheduleTriggersRepository } from '../schedules/schedule-triggers.repository';
import { SealedResponseVault } from '../executions/sealed-response-vault';
import { StepOutputSeals } from '../executions/step-output-seals';
import { executionRetentionDays } from '../organizations/plans';
import type { Logger } from '../logging/logger';
import { createLiquid } from '../templates/template-engine';
import { TemplateRenderer } from '../templates/template-renderer';
import { OrganizationPriceTables } from '../llm-usage/organization-price-tables';
import { OrganizationPricesRepository } from '../llm-usage/organization-prices.repository';
import { createSecretServices } from './services';

/** A model call may take this long before the step gives up (the workflow's activity timeout is longer). */
const LLM_TIMEOUT_MS = 100_000;

/** Builds the worker's activity dependencies from its infrastructure; `close` releases the HTTP client. */
export function createActivityDeps(infra: {
  db: DataSource;
  logger: Logger;
  keyring: MasterKeyring;
  config: Config;
}): ActivityDeps & { close(): Promise<void> } {
  const http = createOutboundHttp({ allowList: infra.config.steps.httpAllowList, maxResponseBytes: infra.config.steps.httpMaxResponseBytes, maxRedirects: 5 });
  const { environments, connections, oauthTokens, catalog, box } = createSecretServices(infra.db, infra.keyring, {
    tokenUrls: infra.config.vendors.tokenUrls,
    http,
  });
  const resumeLinks = resumeLinksFor(infra.keyring, infra.config.http.webhookBaseUrl);
  const secrets: SecretSources = {
    resumeLink: (executionId, stepId) => resumeLinks.url(executionId, stepId),
    async environmentValues(organizationId, environmentId) {
      try {
        return await environments.valuesForRun(organizationId, environmentId);
      } catch (err) {
        if (err instanceof NotFoundError) throw new StepError('The environment this run uses no longer exists', 'EnvironmentNotFound');
        throw err;
      }
    },
    /** An OAuth connection's token about to expire is refreshed first: the step may use it for minutes. */
    async connectionByName(organizationId, connectionName) {
      const named = await connections.resolveByName(organizationId, connectionName);
      const found =
        named &&
        (await oauthTokens.freshen(named).catch((err: unknown) => {
          // A refused refresh token needs a person (reconnect): the step fails at once with the message saying so.
          if (err instanceof OAuthRefreshRefused) throw new StepError(err.message, 'ConnectionRefreshRefused');
          if (err instanceof OAuthRefreshUnavailable) throw new StepError(err.message, 'ConnectionRefreshUnavailable', true);
          throw err;
        }));
      if (!found) return undefined;
      return resolved(found.connection, found.config);
    },
  };
  const resolved = (connection: Connection, config: Record<string, unknown>): ResolvedConnection => {
    const { id, name, type } = connection;
    return { id, name, type, config, secretValues: catalog.secretValues(type, config) };
  };
  /** A feed source's connection, by id within the organization (a renamed connection is still found). */
  const connectionsById = {
    async byId(organizationId: string, connectionId: string): Promise<ResolvedConnection | undefined> {
      const connection = await connections.find(organizationId, connectionId);
      return connection ? resolved(connection, await connections.configOf(connection)) : undefined;
    },
    /**
     * As byId, with a usable OAuth access token: refreshed first when it is
     * about to expire, or when the vendor has just answered 401 to
     * `rejectedAccessToken` (unless the stored token is another one already).
     * Throws OAuthRefreshRefused (reconnect needed) or OAuthRefreshUnavailable (retry).
     */
    async fresh(organizationId: string, connectionId: string, rejectedAccessToken?: string): Promise<ResolvedConnection | undefined> {
      const found = await oauthTokens.current(organizationId, connectionId, { rejectedAccessToken });
      return found && resolved(found.connection, found.config);
    },
  };
  const dataStores = dataStoresService(infra.db.manager);
  const executions = new ExecutionsRepository(infra.db);
  const seals = new StepOutputSeals(box);
  const workflows = new WorkflowsRepository(infra.db.manager);
  // Each organization's prices (its own entries over LLM_PRICES and the defaults), cached until a change is announced.
  const priceRepository = new OrganizationPricesRepository(infra.db);
  const prices = new OrganizationPriceTables(
    (infra.db.options as PostgresConnectionOptions).url!,
    infra.logger,
    infra.config.steps.llmPrices,
    (organizationId) => priceRepository.list(organizationId),
  );
  return {
    logger: infra.logger,
    diagnostics: new DatabaseDiagnostics(infra.db),
    dataStores,
    executions,
    waits: new ExecutionWaitsRepository(infra.db),
    loopItems: new LoopItemsRepository(infra.db),
    resumeLinks,
    workflows,
    scheduleTriggers: new ScheduleTriggersRepository(infra.db.manager),
    renderer: new TemplateRenderer(createLiquid()),
    secrets,
    http,
    llm: { baseUrls: infra.config.steps.llmBaseUrls, timeoutMs: LLM_TIMEOUT_MS, prices },
    sealedResponses: new SealedResponseVault(new SealedResponsesRepository(infra.db), box),
    seals,
    replays: {
      planner: new ReplayPlanner({ executions, replays: new ReplaysRepository(infra.db), seals, workflows }),
      bulks: new ReplayBulksRepository(infra.db),
    },
    retention: { daysByPlan: executionRetentionDays(infra.config.retention.executionDays) },
    feeds: {
      sources: feedSources(infra.db.manager, dataStores),
      connections: connectionsById,
      listings: new ListingDeletionsRepository(infra.db),
      history: new FeedSyncsRepository(infra.db),
      baseUrls: infra.config.vendors.baseUrls,
    },
    close: async () => {
      await http.close();
      await prices.close();
    },
  };
}

/** The feed sources a sync run reads and records its progress in. */
function feedSources(manager: EntityManager, dataStores: DataStoresService): FeedSourcesService {
  const repository = new DataSourcesRepository(manager);
  return new FeedSourcesService(new DataSourcesService(repository, dataStores, new SharesRepository(manager)), repository);
}
