import { defineRoute, type RouteContext } from '../http/route';
import { ExecutionIdParams } from './executions.schemas';
import {
  BulkIdParams,
  BulkReplayBody,
  BulkReplayPreviewSchema,
  BulkReplayProgressSchema,
  BulkReplayStartedSchema,
  ReplayBody,
  ReplayStartedSchema,
} from './replays.schemas';
import type { ReplaysService } from './replays.service';

const tags = ['Executions'];

export function registerReplayRoutes(ctx: RouteContext, service: ReplaysService): void {
  defineRoute(ctx, {
    method: 'post',
    path: '/executions/:id/replay',
    permission: 'workflows:admin',
    tags,
    params: ExecutionIdParams,
    body: ReplayBody,
    summary:
      "Replay an ended run from one of its steps: the steps it ran before that one are not run again (their recorded outputs, or the ones given, are reused); that step and the rest run, with the original's input and environment",
    responses: {
      202: { description: 'The replay started (mode `replay`)', schema: ReplayStartedSchema },
      409: { description: 'The run has not ended (code not_ended)' },
    },
    handler: async ({ auth, params, body }) => ({
      status: 202,
      body: { ...(await service.replay(auth.organizationId, params.id, body)), status: 'running' },
    }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/executions/replay',
    permission: 'workflows:admin',
    tags,
    body: BulkReplayBody,
    summary:
      'Replay many ended runs of a workflow from a step (at most 1,000 per bulk, started 5 a second). A dry run (the default) counts and names them; the same request sent again is the same bulk',
    responses: {
      200: { description: 'Dry run: the runs that match', schema: BulkReplayPreviewSchema },
      202: { description: 'The bulk started (or, sent again, the bulk it already is)', schema: BulkReplayStartedSchema },
    },
    handler: async ({ auth, body }) => {
      const ask = { filter: body.filter, fromStepId: body.fromStepId, version: body.version };
      if (body.dryRun) return { status: 200, body: { dryRun: true, ...(await service.preview(auth.organizationId, ask)) } };
      return { status: 202, body: await service.start(auth.organizationId, ask) };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/executions/replays/:bulkId',
    permission: 'workflows:view',
    tags,
    params: BulkIdParams,
    summary: "A bulk replay's progress: how many of its runs were replayed or failed to, and each run's replay",
    responses: { 200: { description: 'The bulk', schema: BulkReplayProgressSchema } },
    handler: async ({ auth, params }) => {
      const { bulk, items } = await service.progress(auth.organizationId, params.bulkId);
      return {
        status: 200,
        body: {
          bulkId: bulk.id,
          status: bulk.status,
          fromStepId: bulk.request.fromStepId,
          version: bulk.request.version,
          total: bulk.total,
          started: bulk.started,
          failed: bulk.failed,
          executions: items.map(({ originalId, executionId, status, error }) => ({ originalId, executionId, status, error })),
        },
      };
    },
  });
}
