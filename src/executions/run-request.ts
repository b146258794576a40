import type { WorkflowStartOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import type { StepDefinition } from '../workflows/definition.schemas';
import { runDetails, runSummary, type RunInput, type ReplayInput, type RunPresentation } from '../../workflows/run.types';
import type { ExecutionMode, ExecutionsRepository } from './executions.repository';

const { OrganizationId: ORGANIZATION_ID, WorkflowName: WORKFLOW_NAME, TriggerName: TRIGGER_NAME, DeliveryId: DELIVERY_ID } = SEARCH_ATTRIBUTE_KEYS;

/** A run to start: the pinned definition and where its input and environment come from. */
export interface RunRequest {
  organizationId: string;
  workflow: { id: string; name: string; version: number; steps: StepDefinition[] };
  trigger?: { id: string; name: string };
  environmentId: string | null;
  initial: Record<string, unknown>;
  mode: ExecutionMode;
  rerunOf?: string;
  /** A replay from a step: what it takes from its original (its records are copied before the run starts). */
  replay?: ReplayInput;
  /** The execution id, when the caller derives it (a bulk replay, a webhook delivery); else a new one. */
  executionId?: string;
  /**
   * A webhook delivery's id: `executionId` is derived from it, and Temporal
   * refuses a second start of that id (DuplicateStart) instead of this
   * starting a second run.
   */
  deliveryId?: string;
  /**
   * Record the execution only if its trigger has none of this delivery id
   * yet, else throw DeliveryRecorded: a new delivery costs one statement,
   * and one seen before is told apart from it.
   */
  claimNewDelivery?: boolean;
  /**
   * A run of a person's draft (POST /workflows/{id}/draft/test, …/steps/{stepId}/test):
   * recorded as such, and its `replay` (the steps a step test takes as given) names no original.
   */
  draft?: boolean;
  /** Runs once the execution is recorded, before Temporal starts the run: a replay copies its reused step records. */
  beforeStart?: (executionId: string) => Promise<void>;
}

/**
 * A run's steps before its answer are local activities inside one workflow
 * task; when their worker dies, Temporal hands the task to another worker
 * after this (10 s by default). Local activities running longer keep the
 * task alive with heartbeats every 80% of it, so it bounds recovery, not steps.
 */
const WORKFLOW_TASK_TIMEOUT = '4 seconds';

/** The execution row a request writes before its run starts (a step records into it). */
export function executionRecord(request: RunRequest, id: string): Parameters<ExecutionsRepository['insert']>[0] {
  return {
    id,
    organizationId: request.organizationId,
    workflowId: request.workflow.id,
    workflowName: request.workflow.name,
    workflowVersion: request.workflow.version,
    triggerId: request.trigger?.id ?? null,
    triggerName: request.trigger?.name ?? null,
    environmentId: request.environmentId,
    mode: request.mode,
    input: request.initial,
    rerunOf: request.rerunOf ?? null,
    replayOf: request.draft ? null : (request.replay?.of ?? null),
    replayFromStepId: request.draft ? null : (request.replay?.fromStepId ?? null),
    deliveryId: request.deliveryId ?? null,
    draft: request.draft ?? false,
  };
}

/**
 * How Temporal is asked to start the run of execution `id`: its input, the
 * search attributes that let operators find it by organization, workflow,
 * trigger and delivery, what the Web UI shows of it, and for a delivery the
 * policies that refuse a second run of its id.
 */
export function startOptions(request: RunRequest, id: string, taskQueue: string): WorkflowStartOptions {
  const input: RunInput = {
    organizationId: request.organizationId,
    workflow: { id: request.workflow.id, name: request.workflow.name, version: request.workflow.version },
    ...(request.trigger ? { trigger: request.trigger } : {}),
    ...(request.environmentId ? { environmentId: request.environmentId } : {}),
    initial: request.initial,
    steps: request.workflow.steps,
    ...(request.replay ? { replay: request.replay } : {}),
  };
  const shown: RunPresentation = {
    organizationId: request.organizationId,
    workflow: input.workflow,
    mode: request.mode,
    trigger: request.trigger,
    origin: request.rerunOf
      ? `a rerun of execution ${request.rerunOf}`
      : request.replay
        ? `a replay of execution ${request.replay.of} from step ${request.replay.fromStepId}`
        : undefined,
  };
  return {
    workflowId: id,
    taskQueue,
    workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: ORGANIZATION_ID, value: request.organizationId },
      { key: WORKFLOW_NAME, value: request.workflow.name },
      ...(request.trigger ? [{ key: TRIGGER_NAME, value: request.trigger.name }] : []),
      ...(request.deliveryId ? [{ key: DELIVERY_ID, value: request.deliveryId }] : []),
    ]),
    memo: { workflowId: request.workflow.id, version: request.workflow.version, mode: request.mode },
    staticSummary: runSummary(shown),
    staticDetails: runDetails(shown),
    // A delivery's id is refused once used, running (FAIL) or closed (REJECT_DUPLICATE), for as long as Temporal remembers it.
    ...(request.deliveryId ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const, workflowIdConflictPolicy: 'FAIL' as const } : {}),
  };
}
