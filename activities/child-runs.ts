import { createHash } from 'node:crypto';
import type { ExecutionMode, ExecutionsRepository } from '../src/executions/executions.repository';
import type { CurrentWorkflow } from '../src/workflows/workflows.repository';
import type { ChildRunStart } from '../workflows/child-run.types';
import type { StepRunnerDeps } from './steps/step-runner';

/**
 * What every run started by a run shares, whichever started it (a
 * core.workflow step, an agent's workflow tool, a failed run's error
 * workflow): its execution id, its execution row written before it starts,
 * its RunInput, and how its answer is read once it ends.
 */

/** A child run to write: the workflow it runs (its current version) and where it came from. */
export interface ChildRun {
  organizationId: string;
  executionId: string;
  target: CurrentWorkflow;
  mode: Extract<ExecutionMode, 'agent' | 'workflow' | 'error'>;
  /** The child's `initial`, kept in its row only (never in history). */
  input: Record<string, unknown>;
  parentExecutionId: string;
  parentStepId: string | null;
  /** The child's nesting depth (RunInput.agentDepth). */
  depth: number;
  /** The child is an error run or descends from one. */
  errorRun: boolean;
}

/**
 * Writes the child's execution row (once: a retried activity finds it) and
 * answers what the workflow starts it with. The child runs in its own
 * workflow's default environment, as a run of that workflow started by the
 * API without `environment` would: the parent's environment belongs to the
 * parent's workflow, and its secrets are not the child's to read.
 */
export async function prepareChildRun(deps: { executions: ExecutionsRepository }, child: ChildRun): Promise<ChildRunStart> {
  const { organizationId, executionId, target } = child;
  const { workflow, version } = target;
  if (!(await deps.executions.findById(organizationId, executionId))) {
    await deps.executions
      .insert({
        id: executionId,
        organizationId,
        workflowId: workflow.id,
        workflowName: workflow.name,
        workflowVersion: version.version,
        triggerId: null,
        triggerName: null,
        environmentId: workflow.defaultEnvironmentId,
        mode: child.mode,
        input: child.input,
        rerunOf: null,
        parentExecutionId: child.parentExecutionId,
        parentStepId: child.parentStepId,
      })
      .catch((err: { code?: string }) => {
        // A concurrent attempt of this activity wrote it first.
        if (err.code !== '23505') throw err;
      });
  }
  return {
    executionId,
    input: {
      organizationId,
      workflow: { id: workflow.id, name: workflow.name, version: version.version },
      ...(workflow.defaultEnvironmentId ? { environmentId: workflow.defaultEnvironmentId } : {}),
      steps: version.definition.steps,
      ...(child.depth > 0 ? { agentDepth: child.depth } : {}),
      ...(child.errorRun ? { errorRun: true } : {}),
    },
  };
}

/**
 * The execution id of a run started by a run: derived from what started it,
 * so a retried activity finds the row it wrote, and a UUID however deep the
 * nesting (execution ids appear in URLs). `callNumber`: the agent's tool call
 * (1, 2, …); 0 for a core.workflow step (which runs once per run) and for an
 * error run (`stepId` is then `$error`, which no step id can be).
 */
export function childExecutionId(parentExecutionId: string, stepId: string, callNumber: number): string {
  const hex = createHash('sha256').update(`${parentExecutionId}\0${stepId}\0${callNumber}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant, so it reads as the UUID it is shaped like.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The child's answer: its first return step's body, else its last step's output (as recorded, so masked). */
export async function childAnswer(deps: Pick<StepRunnerDeps, 'executions'>, organizationId: string, executionId: string): Promise<unknown> {
  const steps = await deps.executions.steps(organizationId, executionId, { value: 0, read: 0 });
  const topLevel = steps.filter((s) => !s.parentStepId && s.status === 'completed');
  const answer = topLevel.find((s) => s.stepType === 'core.return') ?? topLevel.at(-1);
  if (!answer) return null;
  const json = await deps.executions.stepValueJson(organizationId, executionId, answer.stepId, 'output');
  const output = json ? JSON.parse(json) : null;
  return answer.stepType === 'core.return' ? (output?.body ?? null) : output;
}
