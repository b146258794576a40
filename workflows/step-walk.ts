import type { ReusedSteps } from './replay-from-step';
import type { RunState } from './run-state';
import { inlineLimit, type CallerReply, type RunInput, type StepDefinition, type StepRequest, type StepResult, type WebhookResponse } from './run.types';
import { carryRef, carryResult, type StepContext } from './step-context';
import { executeStepThenReturn } from './step-execution';
import { handlerOf, runStep } from './step-handlers';
import type { StepHandler } from './step-scope';
import type { RunWaits } from './waits';

/** What the walk settled when the run began (patches read once, at the start, so a run behaves alike throughout). */
export interface WalkSettings {
  /** The run's last step completes the run in its own write (`runEndWithLastStep`). */
  endWithLastStep: boolean;
  /** Every step renders a lone expression as its typed value (`typedValues`). */
  typedValues: boolean;
  /** Whether a step may run together with the return step after it (`stepThenReturn`); asked only where one could. */
  stepThenReturn: () => boolean;
}

/**
 * Walks a run's steps in order, each through its type's handler
 * (step-handlers.ts): what it asks for is settled here from the run's state
 * (its sequence number, inline bytes left, whether the caller was answered),
 * and its result carried to the steps after it. A replay's reused steps are
 * walked without running.
 */
export class StepWalk {
  private readonly run: StepRequest['run'];
  private readonly context: StepContext;

  constructor(
    private readonly input: RunInput,
    private readonly state: RunState,
    private readonly waits: RunWaits,
    private readonly reused: ReusedSteps | undefined,
    private readonly settings: WalkSettings,
    executionId: string,
  ) {
    this.run = { executionId, organizationId: input.organizationId, workflowId: input.workflow.id, environmentId: input.environmentId };
    this.context = { initial: input.initial, steps: {}, refs: {} };
  }

  /** `tail`: nothing follows these steps, so the last of them is the run's last. */
  async steps(steps: StepDefinition[], tail: boolean): Promise<void> {
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index];
      const last = tail && index === steps.length - 1;
      if (this.reused?.has(step.stepId)) {
        // A replay takes this step's recorded output (copied into this run) instead of running it: nothing is sent again.
        this.state.seq++;
        carryRef(this.context, step.stepId, { record: step.stepId });
        await this.steps(this.reused.nested(step), last);
        continue;
      }
      const handler = handlerOf(step);
      const request = this.request(step, handler, last);
      const next = steps[index + 1];
      if (next && this.runsAheadOfReturn(handler, next)) {
        await this.stepThenReturn(request, next, tail && index + 1 === steps.length - 1);
        index++;
        continue;
      }
      const { state } = this;
      const { result, then } = await runStep(request, {
        answered: state.answered,
        nesting: this.input,
        history: state.history,
        run: { state, waits: this.waits },
      });
      this.took(step, request.endsRun === true, result);
      if (then) await this.steps(then, last);
    }
  }

  /** What the step's activity gets; takes the step's sequence number. */
  private request(step: StepDefinition, handler: StepHandler, last: boolean): StepRequest {
    // The first return step answers the run's caller; after an event, the next one answers the event's sender too.
    const answersCaller = handler.answers && (!this.state.answered || this.waits.senderWaiting);
    const endsRun = this.settings.endWithLastStep && last && handler.canEndRun;
    return {
      run: this.run,
      step,
      seq: this.state.seq++,
      context: this.context,
      // A core.if output (its branch) is tiny and must stay readable here, so the floor keeps it inline.
      offloadAboveBytes: inlineLimit(this.state.inlineBytes),
      ...(answersCaller ? { answersCaller } : {}),
      ...(endsRun ? { endsRun } : {}),
      ...(this.settings.typedValues ? { typedValues: true } : {}),
    };
  }

  /** While the caller waits, a step and the return step right after it may run as one local activity. */
  private runsAheadOfReturn(handler: StepHandler, next: StepDefinition): boolean {
    return !this.state.answered && handlerOf(next).answers && handler.runsAheadOfReturn && !this.reused?.has(next.stepId) && this.settings.stepThenReturn();
  }

  /** Runs `first` and the return step `next` in one local activity; `nextIsLast`: the return step is the run's last. */
  private async stepThenReturn(first: StepRequest, next: StepDefinition, nextIsLast: boolean): Promise<void> {
    const answerEndsRun = this.settings.endWithLastStep && nextIsLast;
    const answering = {
      run: this.run,
      step: next,
      seq: this.state.seq++,
      answersCaller: true,
      ...(answerEndsRun ? { endsRun: true } : {}),
      ...(this.settings.typedValues ? { typedValues: true } : {}),
    };
    const ran = await executeStepThenReturn(first, answering, this.state.inlineBytes);
    this.took(first.step, first.endsRun === true, ran.first);
    this.took(next, answerEndsRun, ran.answer);
  }

  /** What a step's result changes for the steps after it; a return step's is an answer. */
  private took(step: StepDefinition, endsRun: boolean, result: StepResult): void {
    const { state, context } = this;
    state.endRecorded ||= endsRun;
    state.inlineBytes -= result.bytes;
    carryResult(context, step.stepId, step.stepId, result);
    if (!handlerOf(step).answers) return;
    const sealed = result.sealedAnswer ? { sealed: true } : {};
    const carried = Object.hasOwn(context.steps, step.stepId) ? (context.steps[step.stepId] as WebhookResponse) : undefined;
    const reply: CallerReply = carried ? { kind: 'response', response: carried, ...sealed } : { kind: 'response', record: step.stepId, ...sealed };
    this.waits.tell(reply);
    state.answerWith(reply, carried);
  }
}
