import type { DataStoreShare } from './share.entity';

/** A share as the API shows it (interface.md 2.8). */
export function presentShare(s: DataStoreShare) {
  return {
    id: s.id,
    suid: s.suid,
    organizationId: s.organizationId,
    ownerOrganizationId: s.ownerOrganizationId,
    tableName: s.tableName,
    sharedToOrganizationId: s.sharedToOrganizationId,
    alias: s.alias,
    readOnly: true as const,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** A received share: also what kind of records the table holds. */
export function presentReceivedShare(s: DataStoreShare, analyticsTag: string) {
  return { ...presentShare(s), analyticsTag };
}
