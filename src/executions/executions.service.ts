import type { Client } from '@temporalio/client';
import type { RunUsage } from '../llm-usage/usage';
import type { EnvironmentsService } from '../environments/environments.service';
import { ConflictError, NotFoundError } from '../errors/errors';
import type { WorkflowsService } from '../workflows/workflows.service';
import type { StepDefinition } from '../workflows/definition.schemas';
import { STEP_INLINE_LIMIT } from '../../workflows/run.types';
import { OPEN_STATUSES, type ExecutionStatus, type StepPart } from './executions.constants';
import type { ExecutionWaitsRepository, WaitRow } from './execution-waits.repository';
import type { ExecutionFilter, ExecutionRow, ExecutionsRepository, ReadStep } from './executions.repository';
import type { ReplayMark, ReplaysRepository } from './replays.repository';
import type { RunRequest } from './run-request';
import type { RunStarter } from './run-starter';
import { draftRunHasNoVersion } from './draft-runs';

/** The step values one execution read inlines together; past it, every further value is a reference. */
export const READ_INLINE_BUDGET = 4 * 1024 * 1024;

/** Temporal's closed statuses, as executions name them. */
const CLOSED: Record<string, ExecutionStatus> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

/** Where a run is in Temporal, and its page in the Web UI (null without one configured). */
export interface TemporalLink {
  namespace: string;
  workflowId: string;
  runId: string | null;
  url: string | null;
}

/** An execution read with its steps, and its Temporal run id when the read asked Temporal (it was recorded as running). */
export interface ReadExecution {
  execution: ExecutionRow;
  steps: ReadStep[];
  runId?: string;
  /** What a `waiting` run waits for. */
  waits?: WaitRow[];
  /** Sub-steps the read left out (a loop's items past the first SUB_STEPS_READ_ITEMS). */
  subStepsOmitted?: number;
  /** A replay's steps: how each relates to the original's, by step id. */
  replay?: Map<string, ReplayMark>;
  /** The run's LLM usage summed over its steps; null when no step called a model. */
  usage?: RunUsage | null;
}

/** A run through the API: its execution, read with its steps once the run ended within the wait. */
export interface ApiRun {
  executionId: string;
  read?: ReadExecution;
  /** Not read: the run parked at a core.wait step, and goes on when it wakes. */
  waiting?: boolean;
}

/** Reading, listing, cancelling and re-running executions; every call is scoped to the organization. */
export class ExecutionsService {
  constructor(
    private readonly repo: ExecutionsRepository,
    private readonly client: Client,
    private readonly runs: RunStarter,
    private readonly workflows: WorkflowsService,
    private readonly environments: EnvironmentsService,
    /** How long a caller that waits for a run waits at most. */
    private readonly syncTimeoutMs: number,
    /** The namespace runs start in, and the Temporal Web UI's base URL (no trailing slash) when there is one. */
    private readonly temporal: { namespace: string; uiUrl?: string },
    private readonly waits: Pick<ExecutionWaitsRepository, 'open'>,
    private readonly replays: Pick<ReplaysRepository, 'marks'>,
  ) {}

  /**
   * Runs a workflow's current definition through the API with `initial`, or
   * else the definition's `initial` sample (test runs). With `wait` it waits
   * (bounded) for the run to end: the execution with its steps, or no `read`
   * while it still runs; without, it returns as soon as Temporal has the run.
   */
  async run(
    organizationId: string,
    workflowId: string,
    options: { initial?: Record<string, unknown>; environment?: string; mode: 'api' | 'test'; wait: boolean },
  ): Promise<ApiRun> {
    return this.launch(await this.prepareRun(organizationId, workflowId, options), options.wait);
  }

  /** Starts a prepared run; with `wait`, waits for its end (bounded) and reads it, as `run` answers. */
  async launch(request: RunRequest, wait: boolean): Promise<ApiRun> {
    if (!wait) return { executionId: await this.runs.start(request) };
    const { executionId, outcome } = await this.runs.startAndAwaitResult(request, this.syncTimeoutMs);
    if (outcome.kind === 'timeout') return { executionId };
    if (outcome.kind === 'waiting') return { executionId, waiting: true };
    return { executionId, read: await this.get(request.organizationId, executionId) };
  }

  list(organizationId: string, filter: ExecutionFilter) {
    return this.repo.list(organizationId, filter);
  }

  /**
   * One execution with its steps. A run still "running" here is checked
   * against Temporal, which knows when an operator terminated it or it timed out.
   */
  async get(organizationId: string, id: string): Promise<ReadExecution> {
    const found = await this.find(organizationId, id);
    const { execution, runId } = OPEN_STATUSES.has(found.status) ? await this.reconcile(found) : { execution: found, runId: undefined };
    const [steps, subStepsOmitted, waits, replay, usage] = await Promise.all([
      this.repo.steps(organizationId, id, { value: STEP_INLINE_LIMIT, read: READ_INLINE_BUDGET }),
      this.repo.omittedSubSteps(organizationId, id),
      execution.status === 'waiting' ? this.waits.open(organizationId, id) : undefined,
      execution.replayOf ? this.replays.marks(organizationId, id) : undefined,
      this.repo.usage(organizationId, id),
    ]);
    return { execution, steps, subStepsOmitted, usage, ...(runId ? { runId } : {}), ...(waits ? { waits } : {}), ...(replay ? { replay } : {}) };
  }

  /**
   * Where an execution's run is in Temporal: the execution id is its workflow
   * id. The UI link names the run when its id is known; without it the UI
   * opens the workflow id's latest run, which is this one (ids are never reused).
   */
  temporalLink(executionId: string, runId?: string): TemporalLink {
    const { namespace, uiUrl } = this.temporal;
    const path = `/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(executionId)}${runId ? `/${encodeURIComponent(runId)}` : ''}`;
    return { namespace, workflowId: executionId, runId: runId ?? null, url: uiUrl ? `${uiUrl}${path}` : null };
  }

  /** One step's full input or output, as stored JSON text: what a reference in the execution points to. */
  async stepValueJson(organizationId: string, id: string, stepId: string, part: StepPart): Promise<string> {
    const json = await this.repo.stepValueJson(organizationId, id, stepId, part);
    if (json === undefined) throw new NotFoundError('Execution');
    if (json === null) throw new NotFoundError('Step');
    return json;
  }

  /** Asks Temporal to cancel the run (running or waiting); the run records `cancelled` itself as it stops. */
  async cancel(organizationId: string, id: string): Promise<{ execution: ExecutionRow; runId?: string }> {
    const reconciled = await this.reconcile(await this.find(organizationId, id));
    const { execution } = reconciled;
    if (!OPEN_STATUSES.has(execution.status)) throw new ConflictError(`The execution is ${execution.status}, not running`, 'not_running');
    await this.client.workflow.getHandle(id).cancel();
    return reconciled;
  }

  /** Starts a new run with the original input and environment, on the workflow's current definition or the original version. */
  async rerun(organizationId: string, id: string, definition: 'current' | 'original'): Promise<string> {
    const execution = await this.find(organizationId, id);
    if (execution.draft && definition === 'original') throw draftRunHasNoVersion();
    const current = await this.workflows.get(organizationId, execution.workflowId);
    const version =
      definition === 'original' ? await this.workflows.getVersion(organizationId, execution.workflowId, execution.workflowVersion) : current.version;
    return this.runs.start({
      organizationId,
      workflow: {
        id: current.workflow.id,
        name: current.workflow.name,
        version: version.version,
        steps: (version.definition as { steps: StepDefinition[] }).steps,
      },
      trigger: execution.triggerId ? { id: execution.triggerId, name: execution.triggerName! } : undefined,
      environmentId: execution.environmentId,
      initial: execution.input,
      mode: 'rerun',
      rerunOf: execution.id,
    });
  }

  /** The run request for a workflow's current definition: the given `initial`, or else the definition's sample. */
  private async prepareRun(
    organizationId: string,
    workflowId: string,
    options: { initial?: Record<string, unknown>; environment?: string; mode: 'api' | 'test' },
  ): Promise<RunRequest> {
    const { workflow, version } = await this.workflows.get(organizationId, workflowId);
    const definition = version.definition as { steps: StepDefinition[]; initial?: Record<string, unknown> };
    const environmentId =
      options.environment === undefined ? workflow.defaultEnvironmentId : await this.environments.idByName(organizationId, options.environment, 'environment');
    return {
      organizationId,
      workflow: { id: workflow.id, name: workflow.name, version: workflow.currentVersion, steps: definition.steps },
      environmentId,
      initial: options.initial ?? definition.initial ?? {},
      mode: options.mode,
    };
  }

  private async find(organizationId: string, id: string): Promise<ExecutionRow> {
    const execution = await this.repo.findById(organizationId, id, { withErrorRun: true });
    if (!execution) throw new NotFoundError('Execution');
    return execution;
  }

  /** The execution brought up to date with how its run closed in Temporal, and the run's id when Temporal answered. */
  private async reconcile(execution: ExecutionRow): Promise<{ execution: ExecutionRow; runId?: string }> {
    const description = await this.client.workflow
      .getHandle(execution.id)
      .describe()
      .catch(() => undefined);
    const runId = description?.runId;
    const closed = description && CLOSED[description.status.name];
    if (!closed) return { execution, runId };
    await this.repo.finish(
      execution.organizationId,
      execution.id,
      closed,
      closed === 'completed' ? null : { message: `The run was ${closed.replace('_', ' ')} in Temporal` },
      description.closeTime,
    );
    return { execution: (await this.repo.findById(execution.organizationId, execution.id, { withErrorRun: true })) ?? execution, runId };
  }
}
