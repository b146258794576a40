import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { WorkflowIdParams } from '../workflows/workflows.schemas';
import { STEP_PARTS } from './executions.constants';
import {
  EventAcceptedSchema,
  EventParams,
  EventPayload,
  ExecutionIdParams,
  ExecutionListItemSchema,
  ExecutionSchema,
  ExecutionsQuery,
  RerunBody,
  RunBody,
  StepValueParams,
  TestRunBody,
} from './executions.schemas';
import { presentListedExecution } from './executions.presenter';
import type { ExecutionsService } from './executions.service';
import { runAnswers } from './run-answers';
import type { RunEventsService } from './run-events.service';

const tags = ['Executions'];

export function registerExecutionRoutes(ctx: RouteContext, service: ExecutionsService, events: RunEventsService): void {
  const { started, finished, present, presentRun } = runAnswers(service);

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/runs',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: RunBody,
    summary: "Run a workflow's current definition with a JSON input, asynchronously (202) or waiting for it to end",
    responses: finished,
    handler: async ({ auth, params, body }) =>
      presentRun(await service.run(auth.organizationId, params.id, { initial: body.input, environment: body.environment, mode: 'api', wait: body.wait })),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/test',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: TestRunBody,
    summary: "Test-run a workflow with its definition's `initial` sample (or a given one) and answer with the outcome",
    responses: finished,
    handler: async ({ auth, params, body }) =>
      presentRun(await service.run(auth.organizationId, params.id, { initial: body.initial, environment: body.environment, mode: 'test', wait: true })),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/executions',
    permission: 'workflows:view',
    tags,
    query: ExecutionsQuery,
    summary: 'Executions, newest first, filtered by workflow, status, mode, trigger, parent execution and start time',
    responses: {
      200: {
        description: 'Executions, each with a summary of its input instead of the input, without steps',
        schema: z.object({ total: z.number().int(), data: z.array(ExecutionListItemSchema) }),
      },
    },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.list(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentListedExecution) } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/executions/:id',
    permission: 'workflows:view',
    tags,
    params: ExecutionIdParams,
    summary:
      "One execution: status, timing, input, each step's rendered input and output (secrets masked; large ones as references), the error of a failed step, and where its run is in Temporal (with a Web UI link)",
    responses: { 200: { description: 'The execution', schema: ExecutionSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: present(await service.get(auth.organizationId, params.id)) }),
  });

  for (const part of STEP_PARTS) {
    defineRoute(ctx, {
      method: 'get',
      path: `/executions/:id/steps/:stepId/${part}`,
      permission: 'workflows:view',
      tags,
      params: StepValueParams,
      summary: `One step's full recorded ${part} (secrets masked), however large: what a step's omitted.${part} points to`,
      responses: { 200: { description: `The ${part} as stored, any JSON value (null when the step recorded none)`, schema: z.unknown() } },
      handler: async ({ auth, params }, _req, res) => {
        const json = await service.stepValueJson(auth.organizationId, params.id, params.stepId, part);
        // Sent as the database rendered it: parsing and re-serializing megabytes here would only cost memory.
        res.status(200).type('application/json').send(json);
        return undefined;
      },
    });
  }

  defineRoute(ctx, {
    method: 'post',
    path: '/executions/:id/cancel',
    permission: 'workflows:admin',
    tags,
    params: ExecutionIdParams,
    summary: 'Cancel a running execution; it records "cancelled" as it stops',
    responses: { 200: { description: 'Cancellation requested', schema: ExecutionSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: present(await service.cancel(auth.organizationId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/executions/:id/rerun',
    permission: 'workflows:admin',
    tags,
    params: ExecutionIdParams,
    body: RerunBody,
    summary: 'Run again with the original input and environment',
    responses: started,
    handler: async ({ auth, params, body }) => ({
      status: 202,
      body: { executionId: await service.rerun(auth.organizationId, params.id, body.definition), status: 'running' },
    }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/executions/:id/events/:name',
    permission: 'workflows:admin',
    tags,
    params: EventParams,
    body: EventPayload,
    summary:
      "Send the event a waiting run's core.wait step waits for; the payload (checked against the step's JSON Schema) becomes the step's output and the run goes on",
    responses: {
      202: { description: 'The run took the event and goes on', schema: EventAcceptedSchema },
      409: { description: 'The run is not waiting for this event (code not_waiting)' },
      413: { description: 'The payload is larger than an event may be' },
    },
    handler: async ({ auth, params, body }) => ({
      status: 202,
      body: { ...(await events.send(auth.organizationId, params.id, params.name, body)), status: 'resumed' },
    }),
  });
}
