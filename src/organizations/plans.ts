import type { PlanTier } from './organization.entity';

/** What each plan includes. Operators set an organization's plan with `npm run admin -- set-plan`. */
export interface PlanFeatures {
  /** May share data store tables read-only with other organizations (interface.md 5.5). */
  dataStoreSharing: boolean;
  /**
   * Days executions and their step records are kept (EXECUTION_RETENTION_DAYS
   * overrides it for every plan). Long enough to look back over a billing
   * period and an incident's aftermath; short enough that a busy webhook's
   * records do not grow without bound.
   */
  executionRetentionDays: number;
}

export const PLAN_FEATURES: Record<PlanTier, PlanFeatures> = {
  free: { dataStoreSharing: false, executionRetentionDays: 7 },
  team: { dataStoreSharing: false, executionRetentionDays: 30 },
  business: { dataStoreSharing: true, executionRetentionDays: 90 },
  enterprise: { dataStoreSharing: true, executionRetentionDays: 90 },
};

/** Days each plan keeps executions: the plans' own, or `override` for all of them. */
export function executionRetentionDays(override?: number): Record<PlanTier, number> {
  const plans = Object.keys(PLAN_FEATURES) as PlanTier[];
  return Object.fromEntries(plans.map((plan) => [plan, override ?? PLAN_FEATURES[plan].executionRetentionDays])) as Record<PlanTier, number>;
}

/** The plans that include a feature, for error messages. */
export function plansWith(feature: 'dataStoreSharing'): PlanTier[] {
  return (Object.keys(PLAN_FEATURES) as PlanTier[]).filter((p) => PLAN_FEATURES[p][feature]);
}
