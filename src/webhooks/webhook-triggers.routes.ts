import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { WorkflowIdParams } from '../workflows/workflows.schemas';
import { CreateTriggerBody, RotateSigningSecretBody, TriggerIdParams, TriggerSchema, TriggersQuery, UpdateTriggerBody } from './webhook-triggers.schemas';
import { presentTrigger } from './webhook-triggers.presenter';
import type { WebhookTriggersService } from './webhook-triggers.service';
import { presentScheduleTrigger } from '../schedules/schedule-triggers.presenter';
import { CreateScheduleTriggerBody, ScheduleTriggerSchema } from '../schedules/schedule-triggers.schemas';
import type { ScheduleTriggersService } from '../schedules/schedule-triggers.service';

const tags = ['Webhook triggers'];

export function registerWebhookTriggerRoutes(
  ctx: RouteContext,
  service: WebhookTriggersService,
  scheduleTriggers: ScheduleTriggersService,
  webhookBaseUrl: string,
): void {
  const one = { 200: { description: 'The trigger', schema: TriggerSchema } };

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/triggers',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: z.discriminatedUnion('type', [CreateTriggerBody, CreateScheduleTriggerBody]),
    summary:
      'Add a trigger to a workflow: a webhook (the default; with authentication on, the answer carries the secret, once) or, with `type: "schedule"`, a schedule (a Temporal Schedule)',
    responses: { 201: { description: 'Created', schema: z.union([TriggerSchema, ScheduleTriggerSchema]) } },
    handler: async ({ auth, params, body }, _req, res) => {
      if (body.type === 'schedule') {
        return { status: 201, body: presentScheduleTrigger(await scheduleTriggers.create(auth.organizationId, params.id, body)) };
      }
      const { trigger, generated } = await service.create(auth.organizationId, params.id, body);
      if (generated.secret || generated.signingSecret) res.set('Cache-Control', 'no-store');
      return { status: 201, body: presentTrigger(trigger, auth.organizationSuid, webhookBaseUrl, generated) };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/webhook-triggers',
    permission: 'workflows:view',
    tags,
    query: TriggersQuery,
    summary: 'Webhook triggers by name, optionally of one workflow',
    responses: { 200: { description: 'Triggers', schema: z.object({ total: z.number().int(), data: z.array(TriggerSchema) }) } },
    handler: async ({ auth, query: { workflowId, ...page } }) => {
      const { total, data } = await service.list(auth.organizationId, { workflowId }, page);
      return { status: 200, body: { total, data: data.map((t) => presentTrigger(t, auth.organizationSuid, webhookBaseUrl)) } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/webhook-triggers/:id',
    permission: 'workflows:view',
    tags,
    params: TriggerIdParams,
    summary: 'Read a webhook trigger (never its secret)',
    responses: one,
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentTrigger(await service.get(auth.organizationId, params.id), auth.organizationSuid, webhookBaseUrl),
    }),
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/webhook-triggers/:id',
    permission: 'workflows:admin',
    tags,
    params: TriggerIdParams,
    body: UpdateTriggerBody,
    summary:
      'Rename, change the method, turn authentication on (a secret is generated, shown once) or off, set or remove signature verification, change deduplication',
    responses: one,
    handler: async ({ auth, params, body }, _req, res) => {
      const { trigger, generated } = await service.update(auth.organizationId, params.id, body);
      if (generated.secret || generated.signingSecret) res.set('Cache-Control', 'no-store');
      return { status: 200, body: presentTrigger(trigger, auth.organizationSuid, webhookBaseUrl, generated) };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/webhook-triggers/:id/secret',
    permission: 'workflows:admin',
    tags,
    params: TriggerIdParams,
    summary: 'Rotate the secret: a new one is returned once and the old one stops working',
    responses: { 201: { description: 'The trigger with its new secret', schema: TriggerSchema } },
    handler: async ({ auth, params }, _req, res) => {
      const { trigger, secret } = await service.rotateSecret(auth.organizationId, params.id);
      res.set('Cache-Control', 'no-store');
      return { status: 201, body: presentTrigger(trigger, auth.organizationSuid, webhookBaseUrl, { secret }) };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/webhook-triggers/:id/signing-secret',
    permission: 'workflows:admin',
    tags,
    params: TriggerIdParams,
    body: RotateSigningSecretBody,
    summary:
      'Rotate the signing secret: the new one (given, or generated for hmac and shown once) verifies at once, and the one it replaces keeps verifying for overlapSeconds',
    responses: { 201: { description: 'The trigger, with the generated signing secret when one was generated', schema: TriggerSchema } },
    handler: async ({ auth, params, body }, _req, res) => {
      const { trigger, generated } = await service.rotateSigningSecret(auth.organizationId, params.id, body);
      res.set('Cache-Control', 'no-store');
      return { status: 201, body: presentTrigger(trigger, auth.organizationSuid, webhookBaseUrl, generated) };
    },
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/webhook-triggers/:id',
    permission: 'workflows:admin',
    tags,
    params: TriggerIdParams,
    summary: 'Delete a webhook trigger',
    responses: { 200: { description: 'The deleted trigger', schema: TriggerSchema } },
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentTrigger(await service.delete(auth.organizationId, params.id), auth.organizationSuid, webhookBaseUrl),
    }),
  });
}
