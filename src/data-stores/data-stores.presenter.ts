import type { StoredRecord, TableSummary } from './data-stores.repository';

/** A record as the API and workflow steps show it (interface.md 2.8). */
export function presentRecord(r: StoredRecord) {
  return {
    id: r.id,
    suid: r.suid,
    organizationId: r.organizationId,
    tableName: r.tableName,
    key: r.key,
    value: r.value,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    recordTimestamp: r.recordTimestamp.toISOString(),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** A table as the API lists it. */
export const presentTable = (t: TableSummary) => ({ ...t, createdAt: t.createdAt.toISOString() });
