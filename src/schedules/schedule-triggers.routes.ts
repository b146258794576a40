import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { presentScheduleTrigger } from './schedule-triggers.presenter';
import { ScheduleTriggerIdParams, ScheduleTriggerSchema, ScheduleTriggersQuery, UpdateScheduleTriggerBody } from './schedule-triggers.schemas';
import type { ScheduleTriggersService } from './schedule-triggers.service';

const tags = ['Schedule triggers'];

/** Schedule triggers are created with POST /workflows/{id}/triggers (`type: "schedule"`); these routes read and change them. */
export function registerScheduleTriggerRoutes(ctx: RouteContext, service: ScheduleTriggersService): void {
  const one = { 200: { description: 'The trigger, with its next run times and last runs', schema: ScheduleTriggerSchema } };
  const readOne = async (organizationId: string, id: string) => {
    const { trigger, state, lastRuns } = await service.read(organizationId, id);
    return { status: 200, body: presentScheduleTrigger(trigger, { state, lastRuns }) };
  };

  defineRoute(ctx, {
    method: 'get',
    path: '/schedule-triggers',
    permission: 'workflows:view',
    tags,
    query: ScheduleTriggersQuery,
    summary: 'Schedule triggers by name, optionally of one workflow',
    responses: { 200: { description: 'Triggers', schema: z.object({ total: z.number().int(), data: z.array(ScheduleTriggerSchema) }) } },
    handler: async ({ auth, query: { workflowId, ...page } }) => {
      const { total, data } = await service.list(auth.organizationId, { workflowId }, page);
      return { status: 200, body: { total, data: data.map((t) => presentScheduleTrigger(t)) } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/schedule-triggers/:id',
    permission: 'workflows:view',
    tags,
    params: ScheduleTriggerIdParams,
    summary: 'Read a schedule trigger: its next run times (from its Temporal Schedule) and its last runs',
    responses: one,
    handler: ({ auth, params }) => readOne(auth.organizationId, params.id),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/schedule-triggers/:id',
    permission: 'workflows:admin',
    tags,
    params: ScheduleTriggerIdParams,
    body: UpdateScheduleTriggerBody,
    summary: 'Change a schedule trigger (its Temporal Schedule follows); `paused: true` pauses it, `false` resumes it',
    responses: one,
    handler: async ({ auth, params, body }) => {
      await service.update(auth.organizationId, params.id, body);
      return readOne(auth.organizationId, params.id);
    },
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/schedule-triggers/:id',
    permission: 'workflows:admin',
    tags,
    params: ScheduleTriggerIdParams,
    summary: 'Delete a schedule trigger and its Temporal Schedule (runs already started go on)',
    responses: { 200: { description: 'The deleted trigger', schema: ScheduleTriggerSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentScheduleTrigger(await service.delete(auth.organizationId, params.id)) }),
  });
}
