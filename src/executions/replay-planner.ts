import { ConflictError, NotFoundError, ValidationError } from '../errors/errors';
import type { StepDefinition } from '../workflows/definition.schemas';
import type { WorkflowsRepository } from '../workflows/workflows.repository';
import type { ReplayInput } from '../../workflows/run.types';
import { OPEN_STATUSES } from './executions.constants';
import type { ExecutionRow, ExecutionsRepository } from './executions.repository';
import type { RecordedStep, ReplaysRepository } from './replays.repository';
import type { RunRequest } from './run-request';
import type { StepOutputSeals } from './step-output-seals';
import { draftRunHasNoVersion } from './draft-runs';

/** A replay from a step, as asked for (POST /executions/{id}/replay, or each run of a bulk). */
export interface ReplayRequest {
  fromStepId: string;
  /** Outputs to use instead of the recorded ones, for steps before `fromStepId`. */
  outputs?: Record<string, unknown>;
  /** The definition to run: the version the original used, or the workflow's current one. */
  version: 'original' | 'current';
}

export interface ReplayPlannerDeps {
  executions: Pick<ExecutionsRepository, 'findById'>;
  replays: Pick<ReplaysRepository, 'recordedSteps' | 'sealedOutputs' | 'copyReused'>;
  seals: Pick<StepOutputSeals, 'open' | 'seal'>;
  workflows: Pick<WorkflowsRepository, 'findCurrent' | 'findVersion'>;
}

/**
 * Plans replays from a step: checks the request against the original run
 * and builds the run to start. What `fromStepId` may name: a step the
 * original recorded at the top of its walk, in a `core.if` branch it took or
 * in a `core.wait`'s onTimeout path, the step that failed it included; not
 * an agent's model or tool call (a sub-step: it replays with its agent step).
 * The steps the original ran before it (by its order, `seq`) are reused, and
 * their records are copied into the replay as it starts; every other step
 * runs. (A loop body, when `core.loop` arrives, is one step to this: a
 * `fromStepId` inside it would name the loop step.)
 */
export class ReplayPlanner {
  constructor(private readonly deps: ReplayPlannerDeps) {}

  /**
   * The run request of the replay (mode `replay`), or a refusal: 404 for an
   * execution or workflow the organization does not have, 409 while the
   * original is open, 400 naming the field for a step it may not name.
   */
  async plan(organizationId: string, executionId: string, request: ReplayRequest): Promise<RunRequest> {
    const original = await this.deps.executions.findById(organizationId, executionId);
    if (!original) throw new NotFoundError('Execution');
    if (OPEN_STATUSES.has(original.status)) {
      throw new ConflictError(`The execution is ${original.status}; only a run that has ended can be replayed`, 'not_ended');
    }
    if (original.draft && request.version === 'original') throw draftRunHasNoVersion();
    const recorded = await this.deps.replays.recordedSteps(organizationId, executionId);
    const from = recorded.find((s) => s.stepId === request.fromStepId);
    if (!from) {
      throw invalid('fromStepId', `The original run recorded no step "${request.fromStepId}" (an agent's model or tool call replays with its agent step)`);
    }
    const workflow = await this.definition(organizationId, original, request.version);
    if (!findStep(workflow.steps, request.fromStepId)) {
      throw invalid('fromStepId', `Version ${workflow.version} of the workflow has no step "${request.fromStepId}"`);
    }
    const before = recorded.filter((s) => s.seq < from.seq && s.status === 'completed');
    const outputs = request.outputs ?? {};
    for (const stepId of Object.keys(outputs)) {
      if (!before.some((s) => s.stepId === stepId)) {
        throw invalid(`outputs.${stepId}`, `Only a step the original completed before "${request.fromStepId}" can be given an output`);
      }
    }
    const paths = pathsTaken(workflow.steps, before, new Set(recorded.map((s) => s.stepId)), outputs);
    const replay: ReplayInput = {
      of: original.id,
      fromStepId: request.fromStepId,
      reused: walked(workflow.steps, new Set(before.map((s) => s.stepId)), paths),
      paths,
    };
    return {
      organizationId,
      workflow,
      trigger: original.triggerId ? { id: original.triggerId, name: original.triggerName! } : undefined,
      environmentId: original.environmentId,
      initial: original.input,
      mode: 'replay',
      replay,
      beforeStart: (replayId) => this.copyReused(organizationId, original.id, replayId, replay.reused, outputs),
    };
  }

  private async definition(organizationId: string, original: ExecutionRow, version: ReplayRequest['version']) {
    const current = await this.deps.workflows.findCurrent(organizationId, original.workflowId);
    if (!current) throw new NotFoundError('Workflow');
    const chosen =
      version === 'current' ? current.version : await this.deps.workflows.findVersion(organizationId, original.workflowId, original.workflowVersion);
    if (!chosen) throw new NotFoundError(`Version ${original.workflowVersion}`);
    const { steps } = chosen.definition as { steps: StepDefinition[] };
    return { id: current.workflow.id, name: current.workflow.name, version: chosen.version, steps };
  }

  /** Copies the reused records into the replay; a sealed output is sealed anew for it (a seal names its execution and step). */
  async copyReused(organizationId: string, from: string, to: string, stepIds: string[], replaced: Record<string, unknown>): Promise<void> {
    const sealedIds = stepIds.filter((id) => !(id in replaced));
    const sealed: Record<string, string> = {};
    for (const [stepId, envelope] of await this.deps.replays.sealedOutputs(organizationId, from, sealedIds)) {
      const opened = await this.deps.seals.open(organizationId, from, stepId, envelope);
      sealed[stepId] = await this.deps.seals.seal(organizationId, to, stepId, opened);
    }
    await this.deps.replays.copyReused(organizationId, from, to, { stepIds, replaced, sealed });
  }
}

const invalid = (path: string, message: string) => new ValidationError(message, [{ path, message }]);

/** The step `stepId` anywhere in `steps` (inside core.if branches and core.wait onTimeout paths too). */
export function findStep(steps: StepDefinition[], stepId: string): StepDefinition | undefined {
  for (const step of steps) {
    if (step.stepId === stepId) return step;
    const found = findStep(nestedLists(step).flat(), stepId);
    if (found) return found;
  }
  return undefined;
}

/**
 * The steps of `before` the replay's walk reaches: under a reused step only
 * the path it took (a replaced core.if output may choose the other branch,
 * whose steps are then not reused), under a step that runs any of its paths.
 */
function walked(steps: StepDefinition[], before: Set<string>, paths: ReplayInput['paths']): string[] {
  return steps.flatMap((step) => {
    if (!before.has(step.stepId)) return nestedLists(step).flatMap((list) => walked(list, before, paths));
    const path = paths[step.stepId];
    const nested = path === undefined ? undefined : (step.input as Record<string, unknown>)[path];
    return [step.stepId, ...(Array.isArray(nested) ? walked(nested as StepDefinition[], before, paths) : [])];
  });
}

/** Whether the run recorded this step or any step nested in it. */
function ranAny(step: StepDefinition, recorded: Set<string>): boolean {
  return recorded.has(step.stepId) || nestedLists(step).some((list) => list.some((s) => ranAny(s, recorded)));
}

function nestedLists(step: StepDefinition): StepDefinition[][] {
  const input = step.input as Record<string, unknown>;
  return ['then', 'else', 'onTimeout'].map((key) => input[key]).filter((list): list is StepDefinition[] => Array.isArray(list));
}

/**
 * Which nested steps the replay walks under each reused step holding some: a
 * core.if's branch from its output (the recorded one, or the one given in its
 * place), a core.wait's onTimeout path when the original ran a step of it.
 */
function pathsTaken(steps: StepDefinition[], reused: RecordedStep[], recorded: Set<string>, outputs: Record<string, unknown>): ReplayInput['paths'] {
  const paths: ReplayInput['paths'] = {};
  for (const { stepId } of reused) {
    const step = findStep(steps, stepId);
    if (step?.stepType === 'core.if') {
      const output = stepId in outputs ? outputs[stepId] : reused.find((s) => s.stepId === stepId)?.output;
      paths[stepId] = (output as { result?: unknown } | null)?.result === true ? 'then' : 'else';
    } else if (step?.stepType === 'core.wait') {
      const onTimeout = (step.input as { onTimeout?: unknown }).onTimeout;
      if (Array.isArray(onTimeout) && (onTimeout as StepDefinition[]).some((s) => ranAny(s, recorded))) paths[stepId] = 'onTimeout';
    }
  }
  return paths;
}
