import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../deps';
import { childAnswer, childExecutionId, prepareChildRun } from '../child-runs';
import { MAX_NESTING_DEPTH, type WorkflowStepFinishRequest, type WorkflowStepPrepared, type WorkflowStepPrepareRequest } from '../../workflows/child-run.types';
import { heartbeating, openScope, runStep, toFailure, type StepRunnerDeps } from './step-runner';
import { activityContext } from './activity-context';
import { StepError } from './step-errors';

/**
 * `core.workflow`: `workflowStepPrepare` renders the step's input, finds the
 * workflow and writes the child's execution row; the workflow code runs the
 * child (workflows/workflow-step.ts); `workflowStepFinish` records the step
 * with the child's answer, or fails it with the child's error.
 */
export function createWorkflowStep(deps: StepRunnerDeps & Pick<ActivityDeps, 'workflows'>) {
  return {
    workflowStepPrepare(request: WorkflowStepPrepareRequest): Promise<WorkflowStepPrepared> {
      return heartbeating(async () => {
        const { run, step } = request;
        const startedAt = new Date();
        const scope = await openScope(deps, request);
        let rendered: unknown;
        try {
          const input = step.input.input;
          rendered = input === undefined ? {} : typeof input === 'string' ? await scope.render(input) : await scope.renderDeep(input);
          assertObject(rendered);
          if (request.depth + 1 > MAX_NESTING_DEPTH) {
            throw new StepError(
              `core.workflow steps and agent workflow tools nest at most ${MAX_NESTING_DEPTH} deep; this run is already ${request.depth} deep`,
              'NestingTooDeep',
            );
          }
          const target = await deps.workflows.findCurrentByName(run.organizationId, step.input.workflow);
          if (!target)
            throw new StepError(`No workflow is named "${step.input.workflow}" in this organization (it may have been renamed or deleted)`, 'WorkflowNotFound');
          const start = await prepareChildRun(deps, {
            organizationId: run.organizationId,
            executionId: childExecutionId(run.executionId, step.stepId, 0),
            target,
            mode: 'workflow',
            // Secrets rendered into the input arrive masked: the child's record is readable by whoever reads runs,
            // and the child reads secrets from its own environment.
            input: scope.mask(rendered),
            parentExecutionId: run.executionId,
            parentStepId: step.stepId,
            depth: request.depth + 1,
            errorRun: request.errorRun,
          });
          return { ...start, startedAt: startedAt.toISOString() };
        } catch (err) {
          const failure = toFailure(err, scope);
          // Only the step's own faults are recorded: a database error is retried, and the retry records the outcome.
          if (failure.nonRetryable) {
            await deps.executions.recordStep(run.organizationId, run.executionId, {
              stepId: step.stepId,
              stepType: step.stepType,
              seq: request.seq,
              status: 'failed',
              attempt: activityContext()?.info.attempt ?? 1,
              input: scope.mask({ workflow: step.input.workflow, input: rendered ?? step.input.input ?? {}, wait: step.input.wait !== false }),
              output: null,
              error: failure.message,
              startedAt,
              finishedAt: new Date(),
            });
          }
          throw failure;
        }
      });
    },

    workflowStepFinish(request: WorkflowStepFinishRequest) {
      return runStep(
        deps,
        request,
        async (_scope, trace) => {
          const { organizationId } = request.run;
          const { executionId, workflow } = request.child;
          const child = await deps.executions.findById(organizationId, executionId);
          trace.input = { workflow, input: child?.input ?? null, wait: request.outcome !== undefined };
          if (request.outcome?.status === 'failed') {
            throw ApplicationFailure.nonRetryable(
              `the run of workflow "${workflow}" (execution ${executionId}) failed: ${request.outcome.message}`,
              'ChildRunFailed',
            );
          }
          if (!request.outcome) return { executionId };
          return { executionId, answer: await childAnswer(deps, organizationId, executionId) };
        },
        new Date(request.startedAt),
      );
    },
  };
}

/** The rendered input becomes the child's `initial`, so it must be an object (a lone template may yield anything). */
function assertObject(value: unknown): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new StepError(`input must yield an object (the child's initial); it yielded ${what}`, 'InvalidInput');
  }
}
