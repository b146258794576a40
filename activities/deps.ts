import type { VendorBaseUrls } from '../src/config/config';
import type { FeedSourcesService } from '../src/data-sources/feed-sources.service';
import type { FeedSyncsRepository } from '../src/data-feeds/feed-syncs.repository';
import type { ListingDeletionsRepository } from '../src/data-feeds/listing-deletions.repository';
import type { DatabaseDiagnostics } from '../src/db/database-diagnostics';
import type { DataStoresService } from '../src/data-stores/data-stores.service';
import type { ExecutionsRepository } from '../src/executions/executions.repository';
import type { ExecutionWaitsRepository } from '../src/executions/execution-waits.repository';
import type { ReplayBulksRepository } from '../src/executions/replay-bulks.repository';
import type { ReplayPlanner } from '../src/executions/replay-planner';
import type { ResumeLinks } from '../src/executions/resume-links';
import type { LoopItemsRepository } from '../src/executions/loop-items.repository';
import type { WorkflowsRepository } from '../src/workflows/workflows.repository';
import type { ScheduleTriggersRepository } from '../src/schedules/schedule-triggers.repository';
import type { SealedResponseVault } from '../src/executions/sealed-response-vault';
import type { StepOutputSeals } from '../src/executions/step-output-seals';
import type { Logger } from '../src/logging/logger';
import type { TemplateRenderer } from '../src/templates/template-renderer';
import type { OutboundHttp } from '../src/outbound/outbound-http';
import type { LlmSettings } from './steps/llm-step';
import type { ResolvedConnection, SecretSources } from './steps/step-scope';

/** What activities may use; built by the composition root (src/app/activity-deps.ts), replaced freely in tests. */
export interface ActivityDeps {
  logger: Logger;
  diagnostics: Pick<DatabaseDiagnostics, 'clockAndOrganizationName'>;
  dataStores: DataStoresService;
  executions: ExecutionsRepository;
  /** The waits of `core.wait` steps, and the `waiting` status they set. */
  waits: Pick<ExecutionWaitsRepository, 'begin' | 'end'>;
  /** The items of `core.loop` steps, and what each item recorded. */
  loopItems: LoopItemsRepository;
  /** Resume links of event waits (`$resume.<stepId>`; their hashes are stored as the wait begins). */
  resumeLinks: ResumeLinks;
  /**
   * Workflows with their current definition: what a schedule trigger, an
   * agent's workflow tool, a core.workflow step or an error workflow runs;
   * and a run's pinned version (which error workflow it names).
   */
  workflows: Pick<WorkflowsRepository, 'findCurrent' | 'findCurrentByName' | 'findVersion'>;
  /** Schedule triggers, as a beat of their Temporal Schedule reads them. */
  scheduleTriggers: Pick<ScheduleTriggersRepository, 'findById'>;
  renderer: TemplateRenderer;
  secrets: SecretSources;
  http: OutboundHttp;
  llm: LlmSettings;
  /** Where a return step seals an answer that holds secrets, for the waiting caller. */
  sealedResponses: Pick<SealedResponseVault, 'seal'>;
  /** Where a step's output built from secrets is sealed, for the run's later steps. */
  seals: StepOutputSeals;
  /** Replays from a step: how each is planned, and the bulks a bulk replay's activities go through. */
  replays: { planner: ReplayPlanner; bulks: Pick<ReplayBulksRepository, 'find' | 'items' | 'mark' | 'finish' | 'pruneExpired'> };
  /** How long each plan keeps executions (src/organizations/plans.ts, or EXECUTION_RETENTION_DAYS for all). */
  retention: { daysByPlan: Record<string, number> };
  /**
   * Data feed syncs: the feed sources and their sync state, their
   * connections (by id within the organization, decrypted like a step's;
   * undefined when gone; `fresh` with an OAuth access token refreshed when
   * about to expire or just rejected), and where each vendor's API is.
   */
  feeds: {
    sources: Pick<FeedSourcesService, 'get' | 'recordSync'>;
    connections: {
      byId(organizationId: string, connectionId: string): Promise<ResolvedConnection | undefined>;
      /**
       * Like byId, with an OAuth access token refreshed first when it is about
       * to expire, or when the vendor refused `rejectedAccessToken` (the
       * stored one); one refresh per connection at a time across processes.
       * Throws OAuthRefreshRefused (not retryable: reconnect) or
       * OAuthRefreshUnavailable (retryable), both VendorErrors.
       */
      fresh(organizationId: string, connectionId: string, rejectedAccessToken?: string): Promise<ResolvedConnection | undefined>;
    };
    /** The keys listings saw, and the deletions they settle. */
    listings: ListingDeletionsRepository;
    /** The sync history (GET /dashboards/data-sources/{id}/syncs). */
    history: Pick<FeedSyncsRepository, 'begin' | 'finish'>;
    baseUrls: VendorBaseUrls;
  };
}
