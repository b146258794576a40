import type { SealedResponseVault } from '../../src/executions/sealed-response-vault';
import type { WebhookResponse, StepRequest } from '../../workflows/run.types';
import { runStep, type StepRunnerDeps } from './step-runner';

/** `core.if`, `core.return` and `core.set`: no I/O of their own, but templates may read secrets, so they render here. */
export function createControlSteps(deps: StepRunnerDeps, sealedResponses: Pick<SealedResponseVault, 'seal'>) {
  return {
    /** Output `{ result, branch }`; the workflow runs the branch. */
    ifStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const condition: string = request.step.input.condition;
        trace.input = { condition };
        const result = await scope.test(condition);
        return { result, branch: result ? 'then' : 'else' };
      });
    },

    /** Output: `values` rendered (a lone `{{ }}` keeps the type it yields), read later as `{{ <stepId>.<name> }}`. */
    setStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const values = await scope.renderDeep(request.step.input.values);
        trace.input = { values: request.step.input.values };
        return values;
      });
    },

    /**
     * Output: the response the waiting caller gets, templates inside the body
     * resolved. Recorded masked, like every output; when masking changed the
     * run's answer (the first return step's), the answer as written is sealed
     * for the caller (SealedResponseVault).
     */
    returnStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const { statusCode, body, headers } = request.step.input.webhookResponse;
        const response: WebhookResponse = { statusCode, body: body === undefined ? null : await scope.renderDeep(body) };
        if (headers) response.headers = await scope.renderStrings(headers);
        trace.input = response;
        if (request.answersCaller && scope.secrets.touches(response)) {
          await sealedResponses.seal(request.run.organizationId, request.run.executionId, response);
          trace.sealedAnswer = true;
        }
        return response;
      });
    },
  };
}
