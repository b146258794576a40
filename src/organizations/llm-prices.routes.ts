import { defineRoute, type RouteContext } from '../http/route';
import { EffectivePricesSchema, MAX_ORGANIZATION_PRICES, ReplacePricesBody } from './llm-prices.schemas';
import type { LlmPricesService } from './llm-prices.service';

const tags = ['Organizations'];

/** The active organization's LLM price table: every member reads it, administrators set the organization's own entries. */
export function registerLlmPriceRoutes(ctx: RouteContext, service: LlmPricesService): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/organization/llm-prices',
    permission: null,
    tags,
    summary:
      "The LLM prices the active organization's runs are charged with: the built-in table, the operator's LLM_PRICES over it, the organization's own entries over both (per provider and model), each with its source",
    responses: { 200: { description: 'Prices in effect', schema: EffectivePricesSchema } },
    handler: async ({ auth }) => ({
      status: 200,
      body: { data: await service.effective(auth.organizationId), maxOrganizationEntries: MAX_ORGANIZATION_PRICES },
    }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/organization/llm-prices',
    permission: 'members:admin',
    tags,
    body: ReplacePricesBody,
    summary:
      "Replace the active organization's own LLM price entries. An entry for a provider and model replaces the built-in and LLM_PRICES entries of that model for the organization's calls from now on; costs already recorded stay",
    responses: { 200: { description: 'Prices now in effect', schema: EffectivePricesSchema } },
    handler: async ({ auth, body }) => ({
      status: 200,
      body: { data: await service.replace(auth.organizationId, body.entries), maxOrganizationEntries: MAX_ORGANIZATION_PRICES },
    }),
  });
}
