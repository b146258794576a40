import { trace, type Attributes } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptors } from '@temporalio/workflow';

/**
 * Workflow spans (the run, each activity and child it starts) for runs started with a trace context: the client
 * interceptor of a process with tracing on puts one in the start's headers. A run started without one (tracing off, a
 * schedule, every run recorded before tracing existed) goes through none of the OpenTelemetry interceptors, so its
 * commands and history are exactly what they were and old histories replay unchanged. A traced run replays the same
 * way on any worker, as the headers are part of its history; spans leave the sandbox through the `exporter` sink,
 * which Temporal does not call during replay.
 */
const TRACE_HEADER = '_tracer-data';

/** The organization and workflow of a run, from its start input (`RunInput` and the other workflows' inputs). */
function runAttributes(args: unknown[]): Attributes {
  const input = args[0] as { organizationId?: unknown; workflow?: { id?: unknown } } | undefined;
  const attributes: Attributes = {};
  if (typeof input?.organizationId === 'string') attributes['flowbase.organization.id'] = input.organizationId;
  if (typeof input?.workflow?.id === 'string') attributes['flowbase.workflow.id'] = input.workflow.id;
  return attributes;
}

export const interceptors = (): WorkflowInterceptors => {
  let traced: { inbound: OpenTelemetryInboundInterceptor; outbound: OpenTelemetryOutboundInterceptor; attributes: Attributes } | undefined;
  /** Runs `next` with the run's attributes set on the span the OpenTelemetry interceptor just opened. */
  const labelled =
    <I, O>(next: (input: I) => O) =>
    (input: I): O => {
      trace.getActiveSpan()?.setAttributes(traced!.attributes);
      return next(input);
    };
  const internals = new OpenTelemetryInternalsInterceptor();
  return {
    inbound: [
      {
        execute(input, next) {
          if (input.headers[TRACE_HEADER] === undefined) return next(input);
          traced = { inbound: new OpenTelemetryInboundInterceptor(), outbound: new OpenTelemetryOutboundInterceptor(), attributes: runAttributes(input.args) };
          return traced.inbound.execute(input, labelled(next));
        },
        handleSignal(input, next) {
          return traced ? traced.inbound.handleSignal(input, labelled(next)) : next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => (traced ? traced.outbound.scheduleActivity(input, labelled(next)) : next(input)),
        scheduleLocalActivity: (input, next) => (traced ? traced.outbound.scheduleLocalActivity(input, labelled(next)) : next(input)),
        startChildWorkflowExecution: (input, next) => (traced ? traced.outbound.startChildWorkflowExecution(input, labelled(next)) : next(input)),
        continueAsNew: (input, next) => (traced ? traced.outbound.continueAsNew(input, labelled(next)) : next(input)),
        signalWorkflow: (input, next) => (traced ? traced.outbound.signalWorkflow(input, labelled(next)) : next(input)),
      },
    ],
    internals: [{ dispose: (input, next) => (traced ? internals.dispose(input, next) : next(input)) }],
  };
};
