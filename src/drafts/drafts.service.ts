import type { EnvironmentsService } from '../environments/environments.service';
import { ConflictError, NotFoundError, ValidationError } from '../errors/errors';
import type { ApiRun, ExecutionsService } from '../executions/executions.service';
import type { ExecutionsRepository } from '../executions/executions.repository';
import type { ReplayPlanner } from '../executions/replay-planner';
import type { RunRequest } from '../executions/run-request';
import { toFieldIssues } from '../http/validation';
import { WorkflowDefinition, type StepDefinition, type WorkflowDefinitionInput } from '../workflows/definition.schemas';
import type { WorkflowsService } from '../workflows/workflows.service';
import { inWrittenOrder } from '../workflows/written-order';
import type { DraftRow, DraftsRepository, Pin } from './drafts.repository';
import { MAX_PIN_BYTES } from './drafts.schemas';
import { placeOf } from './step-path';

export interface DraftRunOptions {
  initial?: Record<string, unknown>;
  environment?: string;
}

export interface StepTestOptions extends DraftRunOptions {
  /** A run of this workflow whose recorded outputs the step's earlier steps take (pins win over them). */
  executionId?: string;
}

/**
 * Drafts of workflows: one per workflow and person, kept on the server as
 * they edit and published as the next version. A draft is tested without
 * publishing it: one step at a time, taking the outputs of the steps before
 * it from pins or from a run (the step runs as a real activity through
 * Temporal, with every guard of a run), or whole from its trigger's sample.
 * Runs of a draft are executions in mode `test`, marked `draft`.
 */
export class DraftsService {
  constructor(
    private readonly repo: DraftsRepository,
    private readonly workflows: WorkflowsService,
    private readonly executions: ExecutionsService,
    private readonly executionRows: Pick<ExecutionsRepository, 'findById' | 'stepValueJson'>,
    private readonly planner: Pick<ReplayPlanner, 'copyReused'>,
    private readonly replays: {
      insertGiven: (
        organizationId: string,
        executionId: string,
        given: Array<{ stepId: string; stepType: string; seq: number; output: unknown }>,
      ) => Promise<void>;
    },
    private readonly environments: Pick<EnvironmentsService, 'idByName'>,
  ) {}

  async get(organizationId: string, userId: string, workflowId: string) {
    await this.workflows.assertExists(organizationId, workflowId);
    const draft = await this.repo.find(organizationId, workflowId, userId);
    if (!draft) throw new NotFoundError('Draft');
    return this.withOthers(organizationId, userId, draft);
  }

  async save(organizationId: string, userId: string, workflowId: string, body: { definition: Record<string, unknown>; baseVersion: number }) {
    const { workflow } = await this.workflows.get(organizationId, workflowId);
    if (body.baseVersion > workflow.currentVersion) {
      throw new ValidationError('No such version', [{ path: 'baseVersion', message: `the workflow's newest version is ${workflow.currentVersion}` }]);
    }
    const draft = await this.repo.save(organizationId, workflowId, userId, body.baseVersion, body.definition);
    if (!draft) throw new NotFoundError('Workflow');
    return this.withOthers(organizationId, userId, draft);
  }

  async discard(organizationId: string, userId: string, workflowId: string) {
    await this.workflows.assertExists(organizationId, workflowId);
    const draft = await this.repo.delete(organizationId, workflowId, userId);
    if (!draft) throw new NotFoundError('Draft');
    return { ...draft, others: [] };
  }

  /**
   * Stores the draft as the workflow's next version and deletes it. 409 when
   * a version was published after the draft's base, unless `force`: a
   * publish never silently drops someone else's change.
   */
  async publish(organizationId: string, userId: string, workflowId: string, options: { force: boolean }) {
    const draft = await this.find(organizationId, userId, workflowId);
    const { workflow } = await this.workflows.get(organizationId, workflowId);
    if (draft.baseVersion !== workflow.currentVersion && !options.force) {
      throw new ConflictError(
        `Version ${workflow.currentVersion} was published after this draft started from version ${draft.baseVersion}: publish with force to replace it, or discard the draft`,
        'draft_outdated',
      );
    }
    const definition = this.parse(draft.definition);
    const saved = await this.workflows.update(organizationId, userId, workflowId, definition);
    await this.repo.delete(organizationId, workflowId, userId);
    return saved;
  }

  /** Pins one step's output: given, or the one a run recorded for it (a past run, or a test of the draft). */
  async pin(organizationId: string, userId: string, workflowId: string, stepId: string, body: { output?: unknown; executionId?: string }) {
    const draft = await this.find(organizationId, userId, workflowId);
    const steps = stepsOf(draft.definition);
    if (!placeOf(steps, stepId)) throw new ValidationError('No such step', [{ path: 'stepId', message: `the draft has no step "${stepId}"` }]);
    let output = body.output;
    if (body.executionId !== undefined) {
      const execution = await this.executionRows.findById(organizationId, body.executionId);
      if (!execution || execution.workflowId !== workflowId) throw new NotFoundError('Execution');
      const json = await this.executionRows.stepValueJson(organizationId, body.executionId, stepId, 'output');
      if (json === undefined || json === null) {
        throw new ValidationError('No output to pin', [{ path: 'executionId', message: `that run recorded no output of "${stepId}"` }]);
      }
      if (json.length > MAX_PIN_BYTES) throw tooLarge('executionId', json.length);
      output = JSON.parse(json);
    } else if (JSON.stringify(output ?? null).length > MAX_PIN_BYTES) {
      throw tooLarge('output', JSON.stringify(output).length);
    }
    const pin: Pin = {
      output: output ?? null,
      from: body.executionId ? { executionId: body.executionId } : { given: true },
      pinnedAt: new Date().toISOString(),
    };
    const updated = await this.repo.pin(organizationId, workflowId, userId, stepId, pin);
    if (!updated) throw new NotFoundError('Draft');
    return this.withOthers(organizationId, userId, updated);
  }

  async unpin(organizationId: string, userId: string, workflowId: string, stepId: string) {
    const draft = await this.find(organizationId, userId, workflowId);
    if (!Object.hasOwn(draft.pins, stepId)) throw new NotFoundError('Pin');
    const updated = await this.repo.pin(organizationId, workflowId, userId, stepId, undefined);
    if (!updated) throw new NotFoundError('Draft');
    return this.withOthers(organizationId, userId, updated);
  }

  /** Runs the whole draft from its trigger's sample (or `initial`), as a test run of a version does, without publishing it. */
  async test(organizationId: string, userId: string, workflowId: string, options: DraftRunOptions): Promise<ApiRun> {
    const { definition, request } = await this.prepare(organizationId, userId, workflowId, options);
    return this.executions.launch({ ...request, workflow: { ...request.workflow, steps: definition.steps } }, true);
  }

  /**
   * Runs one step of the draft with the inputs it would see: the steps before
   * it are taken as given (their pins, else what run `executionId` recorded
   * for them) and not run; the step itself runs. Answers the test's
   * execution, and `missing`: earlier steps with no output to take, whose
   * references render as in a run where they did not run.
   */
  async testStep(
    organizationId: string,
    userId: string,
    workflowId: string,
    stepId: string,
    options: StepTestOptions,
  ): Promise<ApiRun & { missing: string[] }> {
    const { draft, definition, request } = await this.prepare(organizationId, userId, workflowId, options);
    const place = placeOf(definition.steps, stepId);
    if (!place) throw new ValidationError('No such step', [{ path: 'stepId', message: `the draft has no step "${stepId}"` }]);
    if (place.inLoopBody) {
      throw new ValidationError('Test the loop', [
        { path: 'stepId', message: `"${stepId}" runs once per item of its loop: test the core.loop step, whose items its body reads` },
      ]);
    }
    const source = options.executionId ? await this.sourceRun(organizationId, workflowId, options.executionId) : undefined;
    const fromRun = new Set(source ? (await this.recordedOutputs(organizationId, source.id, place.before)).map((s) => s.stepId) : []);
    const given = place.before.filter((s) => Object.hasOwn(draft.pins, s.stepId) || fromRun.has(s.stepId));
    const missing = place.before.filter((s) => !given.includes(s)).map((s) => s.stepId);
    const pinned = given.filter((s) => Object.hasOwn(draft.pins, s.stepId));
    const copied = given.filter((s) => !Object.hasOwn(draft.pins, s.stepId)).map((s) => s.stepId);
    const run: RunRequest = {
      ...request,
      initial: options.initial ?? source?.input ?? request.initial,
      // Steps taken as given are walked without running (a replay's reused steps); nothing nested under them is walked.
      workflow: { ...request.workflow, steps: [...given, place.step] },
      replay: { of: source?.id ?? '', fromStepId: stepId, reused: given.map((s) => s.stepId), paths: {} },
      beforeStart: async (executionId) => {
        if (source && copied.length) await this.planner.copyReused(organizationId, source.id, executionId, copied, {});
        if (pinned.length) {
          await this.replays.insertGiven(
            organizationId,
            executionId,
            pinned.map((s) => ({ stepId: s.stepId, stepType: s.stepType, seq: given.indexOf(s) + 1, output: draft.pins[s.stepId].output })),
          );
        }
      },
    };
    return { ...(await this.executions.launch(run, true)), missing };
  }

  /** The draft checked as a publish would check it, and the run request of a test of it (mode test, marked draft). */
  private async prepare(organizationId: string, userId: string, workflowId: string, options: DraftRunOptions) {
    const draft = await this.find(organizationId, userId, workflowId);
    const { workflow } = await this.workflows.get(organizationId, workflowId);
    const definition = this.parse(draft.definition);
    await this.workflows.check(organizationId, definition, workflowId);
    const environmentId =
      options.environment === undefined ? workflow.defaultEnvironmentId : await this.environments.idByName(organizationId, options.environment, 'environment');
    const request: RunRequest = {
      organizationId,
      workflow: { id: workflow.id, name: workflow.name, version: workflow.currentVersion, steps: definition.steps },
      environmentId,
      initial: options.initial ?? definition.initial,
      mode: 'test',
      draft: true,
    };
    return { draft, definition, request };
  }

  private async sourceRun(organizationId: string, workflowId: string, executionId: string) {
    const execution = await this.executionRows.findById(organizationId, executionId);
    if (!execution || execution.workflowId !== workflowId) throw new NotFoundError('Execution');
    return execution;
  }

  /** The steps of `steps` run `executionId` completed, so their outputs can be taken. */
  private async recordedOutputs(organizationId: string, executionId: string, steps: StepDefinition[]) {
    const read = await this.executions.get(organizationId, executionId);
    const completed = new Set(read.steps.filter((s) => s.status === 'completed' && !s.parentStepId).map((s) => s.stepId));
    return steps.filter((s) => completed.has(s.stepId));
  }

  private async find(organizationId: string, userId: string, workflowId: string): Promise<DraftRow> {
    await this.workflows.assertExists(organizationId, workflowId);
    const draft = await this.repo.find(organizationId, workflowId, userId);
    if (!draft) throw new NotFoundError('Draft');
    return draft;
  }

  /** The draft's definition as POST /workflows would take it; a refusal names each field as that route does (`steps.0.input.url`). */
  private parse(definition: unknown): WorkflowDefinitionInput {
    const result = WorkflowDefinition.safeParse(definition);
    if (!result.success) throw new ValidationError('The draft has problems', toFieldIssues(result.error), 'invalid_definition');
    return inWrittenOrder(result.data, definition);
  }

  private async withOthers(organizationId: string, userId: string, draft: DraftRow) {
    return { ...draft, others: await this.repo.others(organizationId, draft.workflowId, userId) };
  }
}

const tooLarge = (path: string, bytes: number) =>
  new ValidationError('Output too large to pin', [{ path, message: `is ${bytes} bytes; a pin holds at most ${MAX_PIN_BYTES}` }]);

const stepsOf = (definition: unknown): StepDefinition[] => {
  const steps = (definition as { steps?: unknown } | null)?.steps;
  return Array.isArray(steps) ? (steps as StepDefinition[]) : [];
};
