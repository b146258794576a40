import { type AnalyticsSource } from './analytics-source.entity';
import { isBuiltIn } from './built-in-sources';

/** A data source as the API shows it (interface.md 2.6); the sync statement stays inside. */
export function presentDataSource(s: AnalyticsSource) {
  return {
    id: s.id,
    suid: s.suid,
    organizationId: s.organizationId,
    userId: s.userId,
    name: s.name,
    type: s.type,
    connectionId: s.connectionId,
    connectionName: s.connectionName,
    dataStoreTableName: s.dataStoreTableName,
    sharedFromOrganizationId: s.sharedFromOrganizationId,
    recordSchema: s.recordSchema,
    windowDimensions: s.windowDimensions,
    syncConfig: s.syncConfig,
    enabled: s.enabled,
    servingEngine: s.servingEngine,
    servingRelation: s.servingRelation,
    hotPathMode: s.hotPathMode,
    // A disabled source keeps serving what it held, but no longer follows its records.
    effectiveHotPathMode: s.enabled ? s.hotPathMode : ('paused' as const),
    builtIn: isBuiltIn(s),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
