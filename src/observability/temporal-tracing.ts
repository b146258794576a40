import type { ClientInterceptors } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Tracing } from './tracing';
import { runAttributes, withRunAttributes } from './trace-context';

/**
 * Temporal's side of tracing, through @temporalio/interceptors-opentelemetry: the client puts the caller's trace
 * context in each start's headers, the workflow interceptors (workflows/tracing-interceptors.ts, bundled with the
 * workflow code) trace the run, and activities continue it. Only runs started with a trace context are traced
 * (the workflow side decides the same way), so a process with tracing off adds nothing to any run.
 */

/** The module the workflow bundle loads as interceptors: every bundle names it (scripts/build.mjs, the test suite's, the worker's own). */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../../workflows/tracing-interceptors')];

const TRACE_HEADER = '_tracer-data';

/** Loaded only by a process that traces: with tracing off nothing of OpenTelemetry's SDK is loaded. */
function interceptorsPackage(): typeof import('@temporalio/interceptors-opentelemetry') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@temporalio/interceptors-opentelemetry');
}

export function clientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  if (!tracing) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = interceptorsPackage();
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

type RunRef = { organizationId?: unknown; workflowId?: unknown; executionId?: unknown };
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The organization, workflow and execution an activity works for, from its input: a step request's `run`, a pair of
 * them (`first`, as stepThenReturn takes), or an input naming its organization.
 */
function activityAttributes(args: unknown[]) {
  const input = args[0] as ({ run?: RunRef; first?: { run?: RunRef } } & RunRef) | undefined;
  const run = input?.run ?? input?.first?.run ?? input;
  return runAttributes(text(run?.organizationId), text(run?.workflowId), text(run?.executionId));
}

/** Activity spans for activities of traced runs, labelled with their run; none for the others. */
export function activityInterceptors(tracing: Tracing | undefined): ActivityInterceptorsFactory[] {
  if (!tracing) return [];
  const { OpenTelemetryActivityInboundInterceptor } = interceptorsPackage();
  return [
    (ctx) => ({
      inbound: {
        execute: (input, next) =>
          input.headers[TRACE_HEADER] === undefined
            ? next(input)
            : new OpenTelemetryActivityInboundInterceptor(ctx).execute(input, (i) => withRunAttributes(activityAttributes(i.args), () => next(i))),
      },
    }),
  ];
}

/**
 * The sink workflow spans leave the sandbox through. Injected with tracing off too (doing nothing): a run traced by
 * another process may reach this worker, and its workflow code calls the sink all the same.
 */
export function tracingSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined, callDuringReplay: false } } };
  const { makeWorkflowExporter } = interceptorsPackage();
  const sink = makeWorkflowExporter(tracing.processor, tracing.resource).export;
  // The package copies the whole WorkflowInfo onto each span (memo, search attributes, the last failure): only who ran it.
  const who = (info: WorkflowInfo) => ({ workflowId: info.workflowId, runId: info.runId, workflowType: info.workflowType, taskQueue: info.taskQueue });
  return { exporter: { export: { fn: (info, spans) => sink.fn(who(info) as WorkflowInfo, spans), callDuringReplay: false } } };
}
