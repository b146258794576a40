import type { PlanTier } from './organization.entity';

/** What each plan includes. Operators set an organization's plan with `npm run admin -- set-plan`. */
export interface PlanFeatures {
  /** May share data store tables read-only with other organizations (interface.md 5.5). */
  dataStoreSharing: boolean;
}

export const PLAN_FEATURES: Record<PlanTier, PlanFeatures> = {
  free: { dataStoreSharing: false },
  team: { dataStoreSharing: false },
  business: { dataStoreSharing: true },
  enterprise: { dataStoreSharing: true },
};

/** The plans that include a feature, for error messages. */
export function plansWith(feature: keyof PlanFeatures): PlanTier[] {
  return (Object.keys(PLAN_FEATURES) as PlanTier[]).filter((p) => PLAN_FEATURES[p][feature]);
}
