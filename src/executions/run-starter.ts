import { WithStartWorkflowOperation, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { newId } from '../ids';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import type { Logger } from '../logging/logger';
import type { StepDefinition } from '../workflows/definition.schemas';
import { awaitAnswerUpdate, INTERPRETER_WORKFLOW, type RunAnswer, type RunInput, type RunResult } from '../../workflows/run.types';
import type { ExecutionMode, ExecutionsRepository } from './executions.repository';

const { OrganizationId: ORGANIZATION_ID, WorkflowName: WORKFLOW_NAME, TriggerName: TRIGGER_NAME } = SEARCH_ATTRIBUTE_KEYS;

/** A run to start: the pinned definition and where its input and environment come from. */
export interface RunRequest {
  organizationId: string;
  workflow: { id: string; name: string; version: number; steps: StepDefinition[] };
  trigger?: { id: string; name: string };
  environmentId: string | null;
  initial: Record<string, unknown>;
  mode: ExecutionMode;
  rerunOf?: string;
}

/** How long a caller waited and what it learned. `timeout`: the run goes on, the caller stops waiting. */
export type AwaitedAnswer = RunAnswer | { kind: 'timeout' };
export type AwaitedResult = { kind: 'finished'; result: RunResult } | { kind: 'failed' } | { kind: 'timeout' };

/**
 * Starts interpreter runs on Temporal. The execution row is written first
 * (a step records into it), then the run starts with search attributes that
 * let operators find it by organization, workflow and trigger.
 */
export class RunStarter {
  constructor(
    private readonly client: Client,
    private readonly executions: ExecutionsRepository,
    private readonly taskQueue: string,
    private readonly logger: Logger,
  ) {}

  /** Starts and returns at once (202 callers). */
  async start(request: RunRequest): Promise<string> {
    const { id, options } = await this.prepare(request);
    await this.guardStart(request, id, () => this.client.workflow.start(INTERPRETER_WORKFLOW, options));
    return id;
  }

  /**
   * Starts and waits, at most `timeoutMs`, for the run's answer: the first
   * return step's response, or how the run ended. Update-with-start makes
   * this one round trip to Temporal.
   */
  async startAndAwaitAnswer(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; answer: AwaitedAnswer }> {
    const { id, options } = await this.prepare(request);
    const operation = new WithStartWorkflowOperation(INTERPRETER_WORKFLOW, { ...options, workflowIdConflictPolicy: 'FAIL' });
    // The deadline also ends the update's long poll, so callers who gave up leave nothing waiting in this process.
    const deadline = AbortSignal.timeout(timeoutMs);
    const update = this.client.withAbortSignal(deadline, () =>
      this.client.workflow.executeUpdateWithStart(awaitAnswerUpdate, { startWorkflowOperation: operation }),
    );
    const answer = await update.then(
      (a): AwaitedAnswer => a,
      async (err): Promise<AwaitedAnswer> => {
        // The start is only confirmed together with the update's acceptance, which a long first step delays: ask Temporal.
        const started = await this.client.workflow
          .getHandle(id)
          .describe()
          .then(
            () => true,
            () => false,
          );
        if (!started) throw await this.notStarted(request, id, err);
        // Started, then no answer: past the deadline, or closed without answering (terminated, timed out).
        return deadline.aborted ? { kind: 'timeout' } : { kind: 'failed', message: 'The run ended before it answered' };
      },
    );
    return { executionId: id, answer };
  }

  /** Starts and waits, at most `timeoutMs`, for the run to end (test runs, synchronous API runs). */
  async startAndAwaitResult(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; outcome: AwaitedResult }> {
    const { id, options } = await this.prepare(request);
    const handle = await this.guardStart(request, id, () => this.client.workflow.start(INTERPRETER_WORKFLOW, options));
    const deadline = AbortSignal.timeout(timeoutMs);
    const outcome = await this.client
      .withAbortSignal(deadline, () => handle.result())
      .then(
        (result: RunResult): AwaitedResult => ({ kind: 'finished', result }),
        (): AwaitedResult => (deadline.aborted ? { kind: 'timeout' } : { kind: 'failed' }),
      );
    return { executionId: id, outcome };
  }

  private async prepare(request: RunRequest) {
    const id = newId();
    await this.executions.insert({
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
    });
    const input: RunInput = {
      organizationId: request.organizationId,
      workflow: { id: request.workflow.id, name: request.workflow.name, version: request.workflow.version },
      ...(request.trigger ? { trigger: request.trigger } : {}),
      ...(request.environmentId ? { environmentId: request.environmentId } : {}),
      initial: request.initial,
      steps: request.workflow.steps,
    };
    const options: WorkflowStartOptions = {
      workflowId: id,
      taskQueue: this.taskQueue,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: ORGANIZATION_ID, value: request.organizationId },
        { key: WORKFLOW_NAME, value: request.workflow.name },
        ...(request.trigger ? [{ key: TRIGGER_NAME, value: request.trigger.name }] : []),
      ]),
      memo: { workflowId: request.workflow.id, version: request.workflow.version, mode: request.mode },
      staticSummary: `${request.workflow.name} v${request.workflow.version} (${request.mode}${request.trigger ? `, trigger ${request.trigger.name}` : ''})`,
    };
    return { id, options };
  }

  private async guardStart<T>(request: RunRequest, id: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (err) {
      throw await this.notStarted(request, id, err);
    }
  }

  /** A run Temporal never accepted is marked failed, so it does not sit "running" forever; returns the error to throw. */
  private async notStarted(request: RunRequest, id: string, err: unknown): Promise<unknown> {
    this.logger.error({ executionId: id, err: { type: (err as Error).name, message: (err as Error).message } }, 'run did not start');
    await this.executions.finish(request.organizationId, id, 'failed', { message: 'The run could not be started' }).catch(() => undefined);
    return err;
  }
}
