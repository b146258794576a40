import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { v5 as uuidv5 } from 'uuid';
import { NotFoundError, ValidationError } from '../errors/errors';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import type { StepDefinition } from '../workflows/definition.schemas';
import type { WorkflowsService } from '../workflows/workflows.service';
import { BULK_REPLAY_WORKFLOW, bulkReplayWorkflowId, type BulkReplayInput } from '../../workflows/bulk-replay.types';
import type { BulkFilter, BulkRequest, ReplayBulksRepository } from './replay-bulks.repository';
import { findStep, type ReplayPlanner, type ReplayRequest } from './replay-planner';
import { BULK_PREVIEW_IDS, BULK_REPLAY_LIMIT } from './replays.schemas';
import type { RunStarter } from './run-starter';

/** The namespace of derived bulk ids (UUIDv5): any fixed UUID would do, this one is this service's. */
const BULK_NAMESPACE = '6f4c1d2e-9a57-4e0b-8f3a-2d51c7b9e804';

export interface BulkReplayAsk {
  filter: BulkFilter;
  fromStepId: string;
  version: ReplayRequest['version'];
}

/** Replays from a step: of one run, and of many at once (a bulk, run by a Temporal workflow). */
export class ReplaysService {
  constructor(
    private readonly planner: ReplayPlanner,
    private readonly runs: Pick<RunStarter, 'start'>,
    private readonly bulks: ReplayBulksRepository,
    private readonly workflows: Pick<WorkflowsService, 'get'>,
    private readonly temporal: { client: Client; taskQueue: string },
  ) {}

  /** Starts a replay of one ended run (mode `replay`); it answers as soon as Temporal has it. */
  async replay(organizationId: string, executionId: string, request: ReplayRequest): Promise<{ executionId: string; replayOf: string }> {
    const plan = await this.planner.plan(organizationId, executionId, request);
    return { executionId: await this.runs.start(plan), replayOf: executionId };
  }

  /** How many runs a bulk would replay, and the first of them; 400 past BULK_REPLAY_LIMIT. */
  async preview(organizationId: string, ask: BulkReplayAsk): Promise<{ total: number; executionIds: string[] }> {
    const ids = await this.select(organizationId, ask);
    return { total: ids.length, executionIds: ids.slice(0, BULK_PREVIEW_IDS) };
  }

  /**
   * Creates the bulk and starts its workflow. The bulk id is derived from the
   * organization and the request (filter, fromStepId, version), so the same
   * request sent again is the same bulk: its runs, fixed when it was first
   * created, are replayed once, and its workflow is started if it was not.
   */
  async start(organizationId: string, ask: BulkReplayAsk): Promise<{ bulkId: string; total: number; status: 'running' | 'completed' }> {
    const request = storedRequest(ask);
    const bulkId = uuidv5(JSON.stringify([organizationId, request]), BULK_NAMESPACE);
    if (!(await this.bulks.find(organizationId, bulkId))) {
      const ids = await this.select(organizationId, ask);
      // Each replay's id comes from the bulk and its original: a retried start finds the run it started.
      const items = ids.map((originalId) => ({ originalId, executionId: uuidv5(originalId, bulkId) }));
      await this.bulks.create(organizationId, { id: bulkId, request, items });
    }
    await this.startWorkflow({ organizationId, bulkId });
    const bulk = (await this.bulks.find(organizationId, bulkId))!;
    return { bulkId, total: bulk.total, status: bulk.status };
  }

  /** A bulk's progress and its runs; 404 for another organization's. */
  async progress(organizationId: string, bulkId: string) {
    const bulk = await this.bulks.find(organizationId, bulkId);
    if (!bulk) throw new NotFoundError('Bulk replay');
    const items = await this.bulks.items(organizationId, bulkId, { limit: BULK_REPLAY_LIMIT });
    return { bulk, items };
  }

  private async select(organizationId: string, ask: BulkReplayAsk): Promise<string[]> {
    const current = await this.workflows.get(organizationId, ask.filter.workflowId);
    if (ask.version === 'current' && !findStep((current.version.definition as { steps: StepDefinition[] }).steps, ask.fromStepId)) {
      const message = `The current version of the workflow has no step "${ask.fromStepId}"`;
      throw new ValidationError(message, [{ path: 'fromStepId', message }]);
    }
    const ids = await this.bulks.select(organizationId, ask.filter, ask.fromStepId, BULK_REPLAY_LIMIT + 1);
    if (ids.length > BULK_REPLAY_LIMIT) {
      const message = `More than ${BULK_REPLAY_LIMIT} runs match; narrow the filter (status, failedStepId, startedAfter, startedBefore)`;
      throw new ValidationError(message, [{ path: 'filter', message }], 'too_many_runs');
    }
    return ids;
  }

  /** One workflow per bulk: a running one is kept, a closed one is not started again. */
  private async startWorkflow(input: BulkReplayInput): Promise<void> {
    try {
      await this.temporal.client.workflow.start(BULK_REPLAY_WORKFLOW, {
        workflowId: bulkReplayWorkflowId(input.bulkId),
        taskQueue: this.temporal.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: new TypedSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.OrganizationId, value: input.organizationId }]),
        staticSummary: `bulk replay ${input.bulkId} (org ${input.organizationId})`,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}

/** The request as stored and as its id is derived from: keys in a fixed order, dates as ISO 8601, absent fields left out. */
function storedRequest(ask: BulkReplayAsk): BulkRequest {
  const { workflowId, status, failedStepId, startedAfter, startedBefore } = ask.filter;
  return {
    filter: {
      workflowId,
      ...(status ? { status } : {}),
      ...(failedStepId ? { failedStepId } : {}),
      ...(startedAfter ? { startedAfter: startedAfter.toISOString() } : {}),
      ...(startedBefore ? { startedBefore: startedBefore.toISOString() } : {}),
    },
    fromStepId: ask.fromStepId,
    version: ask.version,
  };
}
