import { AfterLoad, Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';
import type { RecordSchema, WindowDimension } from './data-sources.schemas';
import { builtInCube, type BuiltInCube, builtInRecordSchema, isBuiltInType } from './runs-source';

export interface SyncConfig {
  syncIntervalMinutes: number;
  /** When the last sync started (while it runs) or ended. */
  lastSyncAt: string | null;
  /** `running`, `success` or `failed`; null before the first sync (src/data-feeds). */
  lastSyncStatus: string | null;
  /** The end of the window the last successful sync covered: the next sync without dates starts there. */
  syncedThrough?: string | null;
  /** The window of the last sync (ISO 8601, start inclusive, end exclusive). */
  lastSyncWindow?: { startDate: string; endDate: string } | null;
  /** Why the last sync failed; never a secret. */
  lastSyncError?: string | null;
  /** What the last sync did to records: new keys, keys whose value changed, keys read again unchanged, keys deleted at the vendor. */
  lastSyncRecords?: { created: number; updated: number; unchanged?: number; deleted?: number } | null;
  /** How far before syncedThrough a sync without dates starts; absent: the feed's own default (src/data-feeds/feeds). */
  lookbackMinutes?: number;
  /** When deletions at the vendor were last reconciled over the feed's reconciliation window. */
  lastReconciledAt?: string | null;
}

/** A data source: an analytics view of one data store table, served from its own typed relation. */
@Entity({ name: 'data_sources' })
export class AnalyticsSource extends OrganizationResource {
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'connection_id', type: 'uuid', nullable: true })
  connectionId!: string | null;

  @Column({ name: 'connection_name', type: 'text', nullable: true })
  connectionName!: string | null;

  @Column({ name: 'data_store_table_name', type: 'text' })
  dataStoreTableName!: string;

  @Column({ name: 'shared_from_organization_id', type: 'uuid', nullable: true })
  sharedFromOrganizationId!: string | null;

  /** The organization whose data store holds the table: the source's own, or the one that shared it. */
  @Column({ name: 'table_organization_id', type: 'uuid' })
  tableOrganizationId!: string;

  /** The share a source over another organization's table reads through; revoking it makes the source unreadable. */
  @Column({ name: 'share_id', type: 'uuid', nullable: true })
  shareId!: string | null;

  @Column({ name: 'record_schema', type: 'jsonb' })
  recordSchema!: RecordSchema;

  @Column({ name: 'window_dimensions', type: 'jsonb' })
  windowDimensions!: WindowDimension[];

  @Column({ name: 'sync_config', type: 'jsonb', nullable: true })
  syncConfig!: SyncConfig | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'serving_engine', type: 'text' })
  servingEngine!: string;

  @Column({ name: 'serving_relation', type: 'text' })
  servingRelation!: string;

  @Column({ name: 'hot_path_mode', type: 'text' })
  hotPathMode!: 'retain';

  /** The upsert the record triggers run (serving-relation.ts writes it); never shown. */
  @Column({ name: 'sync_statement', type: 'text' })
  syncStatement!: string;

  /** A built-in source over the organization's runs (runs-source.ts): the model Cube serves it from; undefined for every other source. */
  builtIn?: BuiltInCube;

  // Set on every load, from the type: a built-in source's model and fields are the code's, so a deploy that changes
  // them needs no migration (the row's copy of the fields is only what it was created with).
  @AfterLoad()
  protected attachBuiltIn(): void {
    this.builtIn = builtInCube(this.type, this.organizationId);
    if (isBuiltInType(this.type)) this.recordSchema = builtInRecordSchema(this.type);
  }
}
