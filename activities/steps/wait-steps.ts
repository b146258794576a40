import type { ExecutionWaitsRepository } from '../../src/executions/execution-waits.repository';
import { ResumeLinks } from '../../src/executions/resume-links';
import { asText } from '../../src/templates/template-renderer';
import { MAX_WAIT_SECONDS, type WaitInputDefinition } from '../../src/workflows/definition.schemas';
import type { StepRequest, StepResult, WaitBegun, WaitEndRequest } from '../../workflows/run.types';
import { StepError } from './step-errors';
import { beginStep, runStep, type StepRunnerDeps } from './step-runner';

/** An instant with its time zone: `until` must not depend on the worker's own zone. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

export interface WaitStepDeps {
  waits: Pick<ExecutionWaitsRepository, 'begin' | 'end'>;
  /** Resume links of event waits: each wait stores its link's hash, the key by which the link finds it. */
  resumeLinks: ResumeLinks;
}

/**
 * `core.wait`'s two activities around the run parking in the workflow:
 * `waitBegin` settles when the wait ends by itself and records it (the
 * execution turns `waiting`), `waitEnd` records how it ended as the step.
 */
export function createWaitSteps(deps: StepRunnerDeps, waitDeps: WaitStepDeps) {
  return {
    waitBegin(request: StepRequest): Promise<WaitBegun> {
      const input = request.step.input as WaitInputDefinition;
      const { organizationId, executionId } = request.run;
      return beginStep(deps, request, { until: input.until }, async (scope, begunAt) => {
        const wakesAt =
          input.seconds !== undefined
            ? begunAt + input.seconds * 1000
            : input.until !== undefined
              ? instant(asText(await scope.render(input.until)), begunAt)
              : begunAt + (input.timeoutSeconds ?? MAX_WAIT_SECONDS) * 1000;
        const event = input.event?.name;
        const linkHash = event ? ResumeLinks.hash(waitDeps.resumeLinks.token(executionId, request.step.stepId)) : null;
        await waitDeps.waits.begin(organizationId, executionId, {
          stepId: request.step.stepId,
          eventName: event ?? null,
          eventSchema: input.event?.schema ?? null,
          linkHash,
          wakesAt: new Date(wakesAt),
        });
        return { wakesAt, begunAt, ...(event ? { event } : {}) };
      });
    },

    /**
     * Output: the event's payload; `{ resumedAt }` after a timer or a
     * deadline; `{ timedOut: true }` when an event wait timed out into its
     * `onTimeout` steps. Timing out without them fails the step.
     */
    waitEnd(request: WaitEndRequest): Promise<StepResult> {
      const input = request.step.input as WaitInputDefinition;
      return runStep(
        deps,
        request,
        async (_scope, trace) => {
          const { outcome } = request;
          trace.input = input.event
            ? { event: input.event.name, ...(outcome.kind === 'event' ? { via: outcome.event.via } : {}) }
            : { until: new Date(request.wakesAt).toISOString() };
          await waitDeps.waits.end(request.run.organizationId, request.run.executionId, request.step.stepId);
          if (outcome.kind === 'event') return outcome.event.payload;
          if (outcome.kind === 'time') return { resumedAt: new Date().toISOString() };
          if (Array.isArray(input.onTimeout)) return { timedOut: true };
          throw new StepError(`No event "${input.event?.name}" came within ${input.timeoutSeconds ?? MAX_WAIT_SECONDS} seconds`, 'WaitTimedOut');
        },
        new Date(request.begunAt),
      );
    },
  };
}

/** `until` as epoch ms: ISO 8601 with a zone, at most MAX_WAIT_SECONDS ahead (a past instant ends the wait at once). */
function instant(text: string, now: number): number {
  const trimmed = text.trim();
  const at = ISO_INSTANT.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(at)) {
    throw new StepError(
      `until must be an ISO 8601 instant with a time zone, such as 2026-12-01T09:00:00Z; it rendered to "${trimmed.slice(0, 100)}"`,
      'InvalidUntil',
    );
  }
  if (at - now > MAX_WAIT_SECONDS * 1000) throw new StepError('until is more than a year away; a wait lasts at most a year', 'InvalidUntil');
  return at;
}
