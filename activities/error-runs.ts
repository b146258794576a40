import type { StepDefinition } from '../src/workflows/definition.schemas';
import type { ChildRunStart, ErrorRunPrepareRequest } from '../workflows/child-run.types';
import { childExecutionId, prepareChildRun } from './child-runs';
import type { ActivityDeps } from './deps';
import { heartbeating } from './steps/step-runner';
import { SecretSet } from './steps/secret-set';

/**
 * What an error workflow's run receives as its `initial`: the run that
 * failed or was cancelled, the step that failed (null when none did: a
 * cancel, an internal error), its error (null when cancelled), and that
 * run's own `initial` with secret values masked.
 */
export interface ErrorReport {
  execution: { id: string; status: 'failed' | 'cancelled'; startedAt: string; finishedAt: string | null; mode: string };
  workflow: { id: string; name: string; version: number };
  failedStep: { stepId: string; stepType: string } | null;
  error: { message: string } | null;
  input: Record<string, unknown>;
}

/** An error run's execution id: derived from the failed run's, so a retried activity finds the row it wrote. */
export const errorExecutionId = (executionId: string) => childExecutionId(executionId, '$error', 0);

export function createErrorRunActivities(deps: Pick<ActivityDeps, 'executions' | 'workflows' | 'secrets' | 'logger'>) {
  return {
    /**
     * The error workflow's run of a run that ended failed or cancelled: null
     * when its definition (the version it ran) names none, or the named
     * workflow is gone or is the run's own workflow (renames can make it so);
     * else its execution row written, mode `error`, linked to the run.
     */
    errorRunPrepare(request: ErrorRunPrepareRequest): Promise<ChildRunStart | null> {
      return heartbeating(async () => {
        const { organizationId, executionId } = request;
        const execution = await deps.executions.findById(organizationId, executionId);
        if (!execution) return null;
        const version = await deps.workflows.findVersion(organizationId, execution.workflowId, execution.workflowVersion);
        const name = version?.definition.errorWorkflow as string | undefined;
        if (!version || !name) return null;
        const target = await deps.workflows.findCurrentByName(organizationId, name);
        if (!target || target.workflow.id === execution.workflowId) {
          deps.logger.warn({ executionId, errorWorkflow: name }, 'The error workflow is missing or is the failed workflow itself; none runs');
          return null;
        }
        const steps = version.definition.steps as StepDefinition[];
        const secrets = await secretsOf(deps, organizationId, execution.environmentId, steps);
        const failedStepId = request.error?.stepId;
        const failedStepType = failedStepId ? stepTypeOf(steps, failedStepId) : undefined;
        const report: ErrorReport = {
          execution: {
            id: execution.id,
            status: request.status,
            startedAt: execution.startedAt.toISOString(),
            finishedAt: execution.finishedAt?.toISOString() ?? null,
            mode: execution.mode,
          },
          workflow: { id: execution.workflowId, name: execution.workflowName, version: execution.workflowVersion },
          failedStep: failedStepId && failedStepType ? { stepId: failedStepId, stepType: failedStepType } : null,
          error: request.error ? { message: request.error.message } : null,
          input: execution.input,
        };
        return prepareChildRun(deps, {
          organizationId,
          executionId: errorExecutionId(executionId),
          target,
          mode: 'error',
          input: secrets.mask(report) as unknown as Record<string, unknown>,
          parentExecutionId: executionId,
          parentStepId: null,
          depth: 0,
          errorRun: true,
        });
      });
    },
  };
}

/**
 * The secret values the failed run could have touched: its environment's
 * secret variables, and the secret fields of the connections its steps
 * name (a `connection` field naming one, `$connections.<name>` in a
 * template). A connection named through `$env` is not followed: its
 * secrets are masked only where they appear as an environment secret.
 */
async function secretsOf(
  deps: Pick<ActivityDeps, 'secrets'>,
  organizationId: string,
  environmentId: string | null,
  steps: StepDefinition[],
): Promise<SecretSet> {
  const secrets = new SecretSet();
  if (environmentId) {
    const values = await deps.secrets.environmentValues(organizationId, environmentId);
    for (const { value, secret } of Object.values(values)) if (secret) secrets.add(value);
  }
  for (const name of connectionNames(steps)) {
    const connection = await deps.secrets.connectionByName(organizationId, name);
    for (const value of connection?.secretValues ?? []) secrets.add(value);
  }
  return secrets;
}

/** Connection names a definition states outright: `connection` fields holding a plain name, and `$connections.<name>` in any string. */
function connectionNames(steps: StepDefinition[]): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'connection' && !value.includes('{{')) names.add(value.trim());
      for (const match of value.matchAll(/\$connections\.([A-Za-z0-9_-]+)/g)) names.add(match[1]);
      for (const match of value.matchAll(/\$connections\[\s*["']([^"']+)["']\s*\]/g)) names.add(match[1]);
    } else if (Array.isArray(value)) value.forEach((item) => walk(item));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(steps);
  return names;
}

/** The type of step `stepId`, branches included. */
function stepTypeOf(steps: StepDefinition[], stepId: string): string | undefined {
  for (const step of steps) {
    if (step.stepId === stepId) return step.stepType;
    if (step.stepType === 'core.if') {
      const found = stepTypeOf([...(step.input.then ?? []), ...(step.input.else ?? [])], stepId);
      if (found) return found;
    }
  }
  return undefined;
}
