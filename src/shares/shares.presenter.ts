import type { DataStoreShare } from './share.entity';
import type { Granter } from './shares.repository';
import type { ShadowedBy } from './shares.service';

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

/** A granted share: also the member of the granting organization who granted it. */
export function presentGrantedShare(s: DataStoreShare, grantedBy: Granter | null) {
  return { ...presentShare(s), grantedBy };
}

/** A received share: also what kind of records the table holds, and what holds its alias when the alias does not reach it. */
export function presentReceivedShare(s: DataStoreShare, analyticsTag: string, shadowedBy: ShadowedBy | null) {
  return { ...presentShare(s), analyticsTag, shadowedBy };
}
