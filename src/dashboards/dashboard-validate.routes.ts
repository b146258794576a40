import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import type { DashboardValidationService } from './dashboard-validation.service';
import { RULES } from './validation/rules';

const ruleIds = Object.keys(RULES) as [keyof typeof RULES, ...Array<keyof typeof RULES>];

const Finding = z
  .object({
    ruleId: z.enum(ruleIds),
    severity: z.enum(['error', 'warning']),
    widget: z.number().int().nullable().describe('index in `widgets`, null for the body itself'),
    message: z.string(),
    path: z.string().optional().describe('where in the body, e.g. widgets[2].queryConfig.filters[0].member'),
  })
  .openapi('DashboardValidationFinding');

const Result = z.object({ ok: z.boolean(), errors: z.array(Finding), warnings: z.array(Finding) }).openapi('DashboardValidationResult');

// Any JSON is accepted and answered: malformed input is a finding (ok: false), never a 400. The documented shape is what passes.
const Body = z.unknown().openapi('DashboardValidateBody', {
  type: 'object',
  properties: {
    widgets: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        required: ['title', 'dataSourceId', 'queryConfig'],
        properties: {
          title: { type: 'string' },
          dataSourceId: { type: 'string' },
          chartType: { type: 'string' },
          queryConfig: { $ref: '#/components/schemas/AnalyticsQuery' },
          displayConfig: { type: 'object' },
        },
      },
    },
  },
});

export function registerDashboardValidateRoutes(ctx: RouteContext, service: DashboardValidationService): void {
  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/validate',
    permission: 'dashboards:view',
    tags: ['Dashboards'],
    body: Body,
    // Always 200: a body nested too deep or holding a NUL is a finding of its own rules (input-shape.ts), never a 400.
    answersAnyJson: true,
    summary: "Check widgets against the organization's sources and fields (did-you-mean hints, chart, time and filter rules); always 200, nothing saved",
    responses: { 200: { description: '`ok` is false when there is an error; warnings never change it', schema: Result } },
    handler: async ({ auth, body }) => ({ status: 200, body: await service.validate(auth.organizationId, body) }),
  });
}
