import { ApplicationFailure } from '@temporalio/common';
import { businessFailure } from '../business-failure';
import type { ExecutionsRepository } from '../../src/executions/executions.repository';
import type { LoopItemsRepository } from '../../src/executions/loop-items.repository';
import type { StepOutputSeals } from '../../src/executions/step-output-seals';
import { TemplateError, type TemplateRenderer } from '../../src/templates/template-renderer';
import type { StepUsage } from '../../src/llm-usage/usage';
import type { StepRequest, StepResult } from '../../workflows/run.types';
import { contextOf, type ValueRef } from '../../workflows/step-context';
import { ATTR, inSpan, runAttributes, withMasking } from '../../src/observability/trace-context';
import { activityContext } from './activity-context';
import { StepError } from './step-errors';
import { StepScope, type SecretSources } from './step-scope';

export interface StepRunnerDeps {
  executions: ExecutionsRepository;
  renderer: TemplateRenderer;
  secrets: SecretSources;
  /** Where an output built from secrets is kept as it was, for later steps of the run. */
  seals: StepOutputSeals;
  /** A loop's items, which its items' steps read one at a time (`item`). */
  loopItems?: Pick<LoopItemsRepository, 'item'>;
}

/**
 * Steps whose output, when built from secrets, is sealed for later steps.
 * Not `core.if` (the workflow reads its branch), nor `core.return` (its
 * answer has a vault of its own, SealedResponseVault).
 */
const SEALED_WHEN_SECRET = (stepType: string) => stepType !== 'core.if' && stepType !== 'core.return';

/** What a step did, filled in as it goes so a failure still shows the input it rendered. */
export interface StepTrace {
  input?: unknown;
  /** A return step sealed its unmasked answer for the caller. */
  sealedAnswer?: boolean;
  /** A model call's tokens and cost (ai.llm-call), recorded beside the output. */
  usage?: StepUsage;
}

/**
 * Runs one step's work with the common parts around it: the template scope
 * (offloaded outputs loaded back), masking, the step record, offloading a
 * large output, and turning errors into Temporal failures that say whether a
 * retry could help. Nothing unmasked leaves this function.
 */
export async function runStep(
  deps: StepRunnerDeps,
  request: StepRequest,
  work: (scope: StepScope, trace: StepTrace) => Promise<unknown>,
  /** A step whose work began in an earlier activity (a wait; a core.workflow step before its child ran) records that start. */
  startedAt = new Date(),
): Promise<StepResult> {
  const attempt = activityContext()?.info.attempt ?? 1;
  return heartbeating(() => inStepSpan(request, attempt, () => runRecorded(deps, request, startedAt, attempt, work)));
}

/**
 * The step's span (tracing on): its type, id, attempt and how it ended, with its run's organization, workflow and
 * execution. Outbound calls, model calls and queries the step makes are its children.
 */
function inStepSpan<T>(request: StepRequest, attempt: number, work: () => Promise<T>): Promise<T> {
  const { run, step } = request;
  const attributes = {
    ...runAttributes(run.organizationId, run.workflowId, run.executionId),
    [ATTR.stepId]: step.stepId,
    [ATTR.stepType]: step.stepType,
    [ATTR.stepAttempt]: attempt,
  };
  return inSpan(`step ${step.stepType}`, attributes, async (span) => {
    try {
      const result = await work();
      span.setAttribute(ATTR.stepStatus, 'completed');
      return result;
    } catch (err) {
      span.setAttribute(ATTR.stepStatus, 'failed');
      throw err;
    }
  });
}

/**
 * The activity that begins a step of two (a wait's, a loop's): `work` gets
 * the scope and when the step began. Nothing is recorded when it succeeds
 * (the step's end records it); when it fails, the step is recorded failed
 * with `input` (masked) and the failure thrown, as runStep would.
 */
export async function beginStep<T>(
  deps: StepRunnerDeps,
  request: StepRequest,
  input: unknown,
  work: (scope: StepScope, begunAt: number) => Promise<T>,
): Promise<T> {
  const attempt = activityContext()?.info.attempt ?? 1;
  return heartbeating(() =>
    inStepSpan(request, attempt, async () => {
      const begunAt = Date.now();
      const scope = await openScope(deps, request);
      try {
        return await withMasking(
          (text) => scope.mask(text),
          () => work(scope, begunAt),
        );
      } catch (err) {
        const failure = toFailure(err, scope);
        await deps.executions.recordStep(request.run.organizationId, request.run.executionId, {
          stepId: request.step.stepId,
          stepType: request.step.stepType,
          seq: request.seq,
          status: 'failed',
          attempt,
          input: scope.mask(input),
          output: null,
          error: failure.message,
          startedAt: new Date(begunAt),
          finishedAt: new Date(),
          ...(request.parent ? { parentStepId: request.parent.stepId, subSeq: request.parent.subSeq } : {}),
        });
        throw failure;
      }
    }),
  );
}

/**
 * Runs `work`, heartbeating when it is a regular activity: it is how Temporal
 * notices a dead worker early and how cancellation arrives. Every second; the
 * SDK sends at most one per 80% of the heartbeat timeout.
 */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const activity = activityContext();
  const heartbeat = activity && !activity.info.isLocal ? setInterval(() => activity.heartbeat(), 1_000) : undefined;
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
  }
}

async function runRecorded(
  deps: StepRunnerDeps,
  request: StepRequest,
  startedAt: Date,
  attempt: number,
  work: (scope: StepScope, trace: StepTrace) => Promise<unknown>,
): Promise<StepResult> {
  const { run, step, seq } = request;
  // A local activity runs again when its worker died before Temporal recorded the workflow task:
  // a write already recorded as done is not written twice.
  if (step.stepType === 'data-store.set') {
    const done = await deps.executions.completedStepOutput(run.organizationId, run.executionId, step.stepId);
    if (done !== undefined) return inline(done);
  }
  const scope = await openScope(deps, request);
  const trace: StepTrace = {};
  const record = (status: 'completed' | 'failed', output: unknown, error: string | null, sealedOutput: string | null = null) =>
    deps.executions.recordStep(
      run.organizationId,
      run.executionId,
      {
        stepId: step.stepId,
        stepType: step.stepType,
        seq,
        status,
        attempt,
        input: scope.mask(trace.input),
        output,
        error,
        startedAt,
        finishedAt: new Date(),
        sealedOutput,
        usage: trace.usage ?? null,
        ...(request.parent ? { parentStepId: request.parent.stepId, subSeq: request.parent.subSeq } : {}),
      },
      { completesRun: status === 'completed' && request.endsRun === true },
    );
  let raw: unknown;
  try {
    raw = await withMasking(
      (text) => scope.mask(text),
      () => work(scope, trace),
    );
  } catch (err) {
    const failure = toFailure(err, scope);
    await record('failed', null, failure.message);
    throw failure;
  }
  const output = scope.mask(raw);
  const sealedAnswer = trace.sealedAnswer ? { sealedAnswer: true } : {};
  const referenced: StepResult = { ...keptInRecord(step.stepId), ...sealedAnswer };
  // Masking changed the output (a value built from a secret): the original is sealed, and later steps read it
  // through the record (a reference), never the masked copy; the secret stays out of the record and of history.
  const rawJson = output !== raw && SEALED_WHEN_SECRET(step.stepType) ? (JSON.stringify(raw) ?? '') : undefined;
  if (rawJson !== undefined && JSON.stringify(output) !== rawJson) {
    const sealed = await deps.seals.seal(run.organizationId, run.executionId, step.stepId, { output: raw, secrets: scope.secrets.formsIn(rawJson) });
    await record('completed', output, null, sealed);
    return referenced;
  }
  await record('completed', output, null);
  const carried = inline(output);
  return carried.bytes <= request.offloadAboveBytes ? { ...carried, ...sealedAnswer } : referenced;
}

/** A result whose output the run carries in its history. */
export function inline(output: unknown): StepResult {
  return { kept: 'inline', output, bytes: Buffer.byteLength(JSON.stringify(output ?? null)) };
}

/** A result whose output stays in the record of step `recordId`: the run carries where it is (a ValueRef), never what. */
export function keptInRecord(recordId: string): StepResult {
  const ref: ValueRef = { record: recordId };
  return { kept: 'record', bytes: Buffer.byteLength(JSON.stringify(ref)) };
}

/**
 * The template scope of a step request: `initial` (from the execution record
 * when the request was kept in history without it) and the earlier outputs
 * (offloaded ones loaded back), plus `extra` roots (an agent tool's `args`).
 */
export async function openScope(
  deps: StepRunnerDeps,
  request: Pick<StepRequest, 'run' | 'context' | 'typedValues'>,
  extra: Record<string, unknown> = {},
): Promise<StepScope> {
  // Loaded when a template reads it: a loop's item steps mostly read `item`, and reloading a large input per item costs.
  const initial = request.context.initial ?? (() => loadInitial(deps, request));
  const { steps, secrets } = await loadValues(deps, request);
  const lone = request.typedValues ? 'values' : 'objects';
  const scope = new StepScope(deps.renderer, deps.secrets, request.run, { initial, steps: { ...steps, ...extra } }, lone);
  // Secrets inside sealed outputs this step reads: whatever it records of them is masked too.
  for (const secret of secrets) scope.addSecret(secret);
  return scope;
}

/** The run's input, from its execution record, for requests kept in history without it. */
async function loadInitial(deps: StepRunnerDeps, request: Pick<StepRequest, 'run'>): Promise<Record<string, unknown>> {
  const execution = await deps.executions.findById(request.run.organizationId, request.run.executionId);
  if (!execution) throw new StepError('The execution record of this run is missing', 'ExecutionNotFound');
  return execution.input;
}

/**
 * The values a step reads: those the run carries, as they are (data, whatever
 * their shape), and those it carries references to (ValueRef), loaded: a
 * sealed output as it was, with the secrets it holds.
 */
async function loadValues(deps: StepRunnerDeps, request: Pick<StepRequest, 'run' | 'context'>): Promise<{ steps: Record<string, unknown>; secrets: string[] }> {
  const { steps: carried, refs } = contextOf(request);
  const steps = { ...carried };
  const { organizationId, executionId } = request.run;
  const records: Array<[string, string]> = [];
  // A loop item's steps read their item by reference, and their earlier steps under the body's ids (the records' are `<loop>[<i>].<id>`).
  for (const [name, ref] of Object.entries(refs)) {
    if ('record' in ref) records.push([name, ref.record]);
    else if (ref.loopItem.indexOnly) steps[name] = ref.loopItem.index;
    else if (!deps.loopItems) throw new StepError('Loop items cannot be read here', 'LoopItemUnavailable');
    else steps[name] = await deps.loopItems.item(organizationId, executionId, ref.loopItem.stepId, ref.loopItem.index);
  }
  const secrets: string[] = [];
  if (records.length === 0) return { steps, secrets };
  const outputs = await deps.executions.stepOutputs(
    organizationId,
    executionId,
    records.map(([, id]) => id),
  );
  for (const [name, id] of records) {
    const stored = outputs.get(id);
    if (stored?.sealed) {
      const opened = await deps.seals.open(organizationId, executionId, id, stored.sealed);
      steps[name] = opened.output;
      secrets.push(...opened.secrets);
    } else steps[name] = stored?.output ?? null;
  }
  return { steps, secrets };
}

/** Business errors fail the step at once; anything unexpected is retried per the step's policy. Messages are masked. */
export function toFailure(err: unknown, scope: StepScope): ApplicationFailure {
  const message = scope.mask(err instanceof Error ? err.message : String(err));
  if (err instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      message,
      type: err.type ?? undefined,
      nonRetryable: err.nonRetryable ?? false,
      details: err.details ? scope.mask([...err.details]) : undefined,
    });
  }
  if (err instanceof StepError) return ApplicationFailure.create({ message, type: err.type, nonRetryable: !err.retryable });
  if (err instanceof TemplateError) return ApplicationFailure.create({ message, type: 'TemplateError', nonRetryable: true });
  return businessFailure(err, (value) => scope.mask(value)) ?? ApplicationFailure.create({ message, type: 'StepError', nonRetryable: false });
}
