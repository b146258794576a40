import type { ApiAnswer, ApiSchema } from '../../api/schemas';

/** Shapes the data pages read: aliases of the generated API types (src/data-stores, src/data-sources, src/data-feeds schemas). */

export type DataTable = ApiSchema<'DataStoreTable'>;
export type DataRecord = ApiSchema<'DataStoreRecord'>;
export type RecordPage = ApiSchema<'DataStoreRecordPage'>;
export type TableList = ApiAnswer<'/data-stores/tables', 'get'>;

export type DataSource = ApiSchema<'DataSource'>;
export type FieldDefinition = DataSource['recordSchema']['fields'][string];
export type FieldType = FieldDefinition['type'];
export type Expression = ApiSchema<'Expression'>;
export type CalculatedField = DataSource['recordSchema']['calculatedFields'][number];
export type WindowDimension = DataSource['windowDimensions'][number];
export type SyncConfig = NonNullable<DataSource['syncConfig']>;
export type SyncStatus = NonNullable<SyncConfig['lastSyncStatus']>;
export type FeedSync = ApiSchema<'FeedSync'>;
export type FeedSyncList = ApiSchema<'FeedSyncList'>;
export type SyncQueued = ApiSchema<'SyncQueued'>;
export type SourceList = ApiAnswer<'/dashboards/data-sources', 'get'>;
export type InferredFields = ApiSchema<'InferredFields'>;
export type ReceivedShare = ApiSchema<'ReceivedShare'>;
export type ConnectionList = ApiAnswer<'/connections', 'get'>;
export type FeedToggled = ApiSchema<'DataFeedToggled'>;
export type FeedCatalog = ApiSchema<'DataFeedCatalog'>;
export type AnalyticsAnswer = ApiAnswer<'/dashboards/analytics/query', 'post', 201>;
export type FormulaPreview = ApiAnswer<'/dashboards/data-sources/{dataSourceId}/calculated-fields/preview', 'post'>;

/** A table or record path: names and keys are URL-encoded (a key may hold `/`, `?` or `#`). */
export const tablePath = (name: string) => `/data-stores/tables/${encodeURIComponent(name)}`;
export const recordPath = (table: string, key: string) => `${tablePath(table)}/records/${encodeURIComponent(key)}`;
