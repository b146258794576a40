/** Shapes the data pages read, as the API answers them (src/data-stores, src/data-sources, src/data-feeds schemas). */

export interface DataTable {
  tableName: string;
  recordCount: number;
  createdVia: 'api' | 'import' | 'workflow';
  createdAt: string;
}

export interface DataRecord {
  id: string;
  key: string;
  tableName: string;
  value: Record<string, unknown>;
  expiresAt: string | null;
  recordTimestamp: string;
  createdAt: string;
  updatedAt: string;
}

export interface RecordPage {
  data: DataRecord[];
  nextAfter: string | null;
  total?: number;
}

export type FieldType = 'date' | 'string' | 'number';

export interface FieldDefinition {
  type: FieldType;
  label: string;
  measure?: boolean;
  timeDimension?: boolean;
}

export type Expression =
  | { type: 'BinaryExpression'; operator: '+' | '-' | '*' | '/' | '%'; left: Expression; right: Expression }
  | { type: 'Identifier'; name: string }
  | { type: 'Literal'; value: number; raw?: string };

export interface CalculatedField {
  id: string;
  name: string;
  label: string;
  type: 'number';
  expression: Expression;
  formula: string;
  measure: boolean;
}

export interface WindowDimension {
  id: string;
  name: string;
  label: string;
  function: 'row_number';
  partitionBy: string[];
  orderBy: string;
  direction: 'asc' | 'desc';
  semantic: 'lifetime';
}

export type SyncStatus = 'running' | 'success' | 'failed';

export interface SyncConfig {
  syncIntervalMinutes: number;
  lastSyncAt: string | null;
  lastSyncStatus: SyncStatus | null;
  syncedThrough?: string | null;
  lastSyncWindow?: { startDate: string; endDate: string } | null;
  lastSyncError?: string | null;
  lastSyncRecords?: { created: number; updated: number; unchanged?: number; deleted?: number } | null;
  lookbackMinutes?: number;
  lastReconciledAt?: string | null;
}

export interface DataSource {
  id: string;
  suid: string;
  name: string;
  type: string;
  connectionId: string | null;
  connectionName: string | null;
  dataStoreTableName: string;
  sharedFromOrganizationId: string | null;
  recordSchema: { name: string; fields: Record<string, FieldDefinition>; calculatedFields: CalculatedField[] };
  windowDimensions: WindowDimension[];
  syncConfig: SyncConfig | null;
  enabled: boolean;
  effectiveHotPathMode: string;
  createdAt: string;
  updatedAt: string;
}

export interface FeedSync {
  id: string;
  trigger: 'schedule' | 'manual' | 'backfill';
  status: SyncStatus;
  window: { startDate: string; endDate: string };
  records: { created: number; updated: number; unchanged: number; deleted: number };
  vendorRequests: number;
  pages: number;
  reconciled: boolean;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  error: string | null;
}

/** A table or record path: names and keys are URL-encoded (a key may hold `/`, `?` or `#`). */
export const tablePath = (name: string) => `/data-stores/tables/${encodeURIComponent(name)}`;
export const recordPath = (table: string, key: string) => `${tablePath(table)}/records/${encodeURIComponent(key)}`;
