import { type FieldIssue, NotFoundError, ValidationError } from '../errors/errors';
import type { DataStoresService } from '../data-stores/data-stores.service';
import { newId, newSuid } from '../ids';
import { AnalyticsSource, type SyncConfig } from './analytics-source.entity';
import type { DataSourcesRepository, RelationChange } from './data-sources.repository';
import type {
  CalculatedField,
  CreateDataSourceBody,
  Expression,
  PatchDataSourceBody,
  RecordSchema,
  RecordSchemaInput,
  WindowDimension,
} from './data-sources.schemas';
import { newFieldsFrom } from './field-inference';
import { calculatedFieldIssues, expressionIssues, modelIssues, windowDimensionIssues, windowUnsupportedReason } from './schema-rules';
import { physicalShape, SERVING_ENGINE, servingRelationName, timeField } from './serving-relation';

/** Records read by refresh-schema, and rows shown by a calculated-field preview. */
const SAMPLE_SIZE = 1000;
const PREVIEW_ROWS = 20;

function toRecordSchema(input: RecordSchemaInput, keep: CalculatedField[] = []): RecordSchema {
  return {
    name: input.name,
    fields: input.fields,
    calculatedFields: input.calculatedFields ? input.calculatedFields.map((c) => ({ ...c, id: c.id ?? newId() })) : keep,
  };
}

function throwIfAny(issues: FieldIssue[], message: string): void {
  if (issues.length > 0) throw new ValidationError(message, issues);
}

/** A feed-backed source as the data feeds create it. */
export interface FeedSourceInput {
  name: string;
  type: string;
  connectionId: string;
  connectionName: string;
  dataStoreTableName: string;
  recordSchema: RecordSchemaInput;
  syncIntervalMinutes: number;
}

interface NewSource {
  name: string;
  type: string;
  dataStoreTableName: string;
  recordSchema: RecordSchemaInput;
  enabled: boolean;
  hotPathMode: AnalyticsSource['hotPathMode'];
  connectionId?: string;
  connectionName?: string;
  sharedFromOrganizationId?: string;
  syncConfig?: SyncConfig;
}

/** The most distinct source ids one lookup reads: 200 widgets and 50 filters, with room to spare. */
export const MAX_LOOKUP_IDS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Data sources over data store tables: their model (fields, calculated
 * fields, window dimensions) and the life of their serving relations.
 */
export class DataSourcesService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly dataStores: DataStoresService,
  ) {}

  list(organizationId: string): Promise<AnalyticsSource[]> {
    return this.repository.list(organizationId);
  }

  async get(organizationId: string, id: string): Promise<AnalyticsSource> {
    const source = await this.repository.find(organizationId, id);
    if (!source) throw new NotFoundError('Data source');
    return source;
  }

  /**
   * The organization's sources among `ids`, by id: an unknown id, or another
   * organization's, is simply absent. One query; ids that are not UUIDs
   * cannot name a source and are dropped, and past MAX_LOOKUP_IDS distinct
   * ids the rest are absent too (no request names that many sources).
   */
  async findOwn(organizationId: string, ids: readonly string[]): Promise<Map<string, AnalyticsSource>> {
    const wanted = [...new Set(ids)].filter((id) => UUID.test(id)).slice(0, MAX_LOOKUP_IDS);
    const found = await this.repository.findMany(organizationId, wanted);
    return new Map(found.map((s) => [s.id, s]));
  }

  async create(organizationId: string, userId: string | null, body: CreateDataSourceBody): Promise<AnalyticsSource> {
    if (body.type !== 'custom') {
      throw new ValidationError(
        `Only "custom" sources can be created here; "${body.type}" sources come from data feeds`,
        [{ path: 'type', message: 'must be "custom"' }],
        'unsupported_type',
      );
    }
    if (body.sharedFromOrganizationId) {
      // Shares are not offered yet, so no share can be active.
      throw new ValidationError(
        'No active share of this table from that organization',
        [{ path: 'sharedFromOrganizationId', message: 'no active share' }],
        'share_inactive',
      );
    }
    if (!(await this.dataStores.tableExists(organizationId, body.dataStoreTableName))) {
      throw new ValidationError(
        `Data store table "${body.dataStoreTableName}" does not exist`,
        [{ path: 'dataStoreTableName', message: 'no such table' }],
        'unknown_table',
      );
    }
    return this.build(organizationId, userId, {
      name: body.name,
      type: body.type,
      dataStoreTableName: body.dataStoreTableName,
      recordSchema: body.recordSchema,
      enabled: body.enabled,
      hotPathMode: body.hotPathMode,
    });
  }

  /**
   * The data source a data feed fills: of the feed's type, bound to the
   * connection it syncs through, over a table the caller has created.
   */
  createFeedSource(organizationId: string, userId: string | null, feed: FeedSourceInput): Promise<AnalyticsSource> {
    return this.build(organizationId, userId, {
      ...feed,
      enabled: true,
      hotPathMode: 'retain',
      syncConfig: { syncIntervalMinutes: feed.syncIntervalMinutes, lastSyncAt: null, lastSyncStatus: null },
    });
  }

  private build(organizationId: string, userId: string | null, input: NewSource): Promise<AnalyticsSource> {
    const recordSchema = toRecordSchema(input.recordSchema);
    throwIfAny(modelIssues(recordSchema, []), 'Invalid calculated fields');
    const id = newId();
    const source = Object.assign(new AnalyticsSource(), {
      id,
      suid: newSuid(),
      organizationId,
      userId,
      name: input.name,
      type: input.type,
      connectionId: input.connectionId ?? null,
      connectionName: input.connectionName ?? null,
      dataStoreTableName: input.dataStoreTableName,
      sharedFromOrganizationId: input.sharedFromOrganizationId ?? null,
      tableOrganizationId: input.sharedFromOrganizationId ?? organizationId,
      recordSchema,
      windowDimensions: [],
      syncConfig: input.syncConfig ?? null,
      enabled: input.enabled,
      servingEngine: SERVING_ENGINE,
      servingRelation: servingRelationName(id),
      hotPathMode: input.hotPathMode,
    });
    return this.repository.create(source);
  }

  /**
   * Renames, enables or disables, and replaces the record schema. A schema
   * whose fields change rebuilds the serving relation; a new time dimension
   * needs `confirmTimeFieldRekey` because the relation is re-keyed (rewritten
   * in the new time order and re-indexed), which takes a while on big tables.
   */
  update(organizationId: string, id: string, patch: PatchDataSourceBody): Promise<AnalyticsSource> {
    return this.change(organizationId, id, (source) => {
      let rebuild = false;
      if (patch.recordSchema) {
        const next = toRecordSchema(patch.recordSchema, source.recordSchema.calculatedFields);
        throwIfAny(modelIssues(next, source.windowDimensions), 'The new record schema breaks calculated fields or window dimensions of this source');
        const from = timeField(source.recordSchema);
        const to = timeField(next);
        if (from !== to && !patch.confirmTimeFieldRekey) {
          throw new ValidationError(
            `Changing the time dimension from "${from}" to "${to}" rebuilds the serving relation from every record; send confirmTimeFieldRekey: true to do it`,
            [{ path: 'confirmTimeFieldRekey', message: 'required to change the time dimension' }],
            'time_field_rekey_unconfirmed',
          );
        }
        rebuild = physicalShape(next) !== physicalShape(source.recordSchema);
        source.recordSchema = next;
      }
      if (patch.name !== undefined) source.name = patch.name;
      if (patch.hotPathMode !== undefined) source.hotPathMode = patch.hotPathMode;
      if (patch.enabled !== undefined) {
        // Re-enabled: records written while paused are caught up by a rebuild.
        rebuild ||= patch.enabled && !source.enabled;
        source.enabled = patch.enabled;
      }
      return rebuild ? 'rebuild' : 'none';
    });
  }

  async delete(organizationId: string, id: string): Promise<void> {
    if (!(await this.repository.delete(organizationId, id))) throw new NotFoundError('Data source');
  }

  /**
   * Adds the fields that sampled records hold and the schema lacks; flags,
   * labels and calculated fields of the known ones are kept. With no records
   * there is nothing to sample and the source is unchanged.
   */
  async refreshSchema(organizationId: string, id: string) {
    const sampled = await this.get(organizationId, id);
    const samples = await this.repository.sampleValues(sampled, SAMPLE_SIZE);
    if (samples.length === 0) return { refreshed: false as const, message: 'The table holds no records to sample; the schema is unchanged' };
    let found: ReturnType<typeof newFieldsFrom> = { fields: {}, skipped: [] };
    const source = await this.change(organizationId, id, (current) => {
      // Compared with the schema as it is now, locked: an edit since the sampling is kept.
      found = newFieldsFrom(
        samples,
        new Set([
          ...Object.keys(current.recordSchema.fields),
          ...current.recordSchema.calculatedFields.map((c) => c.name),
          ...current.windowDimensions.map((w) => w.name),
        ]),
      );
      if (Object.keys(found.fields).length === 0) return 'none';
      current.recordSchema = { ...current.recordSchema, fields: { ...current.recordSchema.fields, ...found.fields } };
      return 'rebuild';
    });
    return { refreshed: true as const, added: Object.keys(found.fields), skipped: found.skipped, source };
  }

  async reindex(organizationId: string, id: string): Promise<void> {
    await this.change(organizationId, id, () => 'reindex');
  }

  async addCalculatedField(organizationId: string, id: string, body: Omit<CalculatedField, 'id'>): Promise<CalculatedField> {
    const field = { id: newId(), ...body };
    await this.change(organizationId, id, (source) => {
      throwIfAny(calculatedFieldIssues(source.recordSchema, source.windowDimensions, body), 'Invalid calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: [...source.recordSchema.calculatedFields, field] };
      return 'none';
    });
    return field;
  }

  /** The expression over the first rows of the source, in key order; nothing is saved. */
  async previewExpression(organizationId: string, id: string, expression: Expression): Promise<Array<number | null>> {
    const source = await this.get(organizationId, id);
    throwIfAny(expressionIssues(source.recordSchema, expression), 'Invalid expression');
    return this.repository.preview(source, expression, PREVIEW_ROWS);
  }

  /** Changes attributes; a rename leaves widgets naming the old name as they are (they then match nothing). */
  async updateCalculatedField(organizationId: string, id: string, fieldId: string, patch: Partial<Omit<CalculatedField, 'id'>>): Promise<CalculatedField> {
    let updated: CalculatedField | undefined;
    await this.change(organizationId, id, (source) => {
      const current = source.recordSchema.calculatedFields.find((c) => c.id === fieldId);
      if (!current) throw new NotFoundError('Calculated field');
      const next = { ...current, ...patch };
      throwIfAny(calculatedFieldIssues(source.recordSchema, source.windowDimensions, next), 'Invalid calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: source.recordSchema.calculatedFields.map((c) => (c.id === fieldId ? next : c)) };
      updated = next;
      return 'none';
    });
    return updated!;
  }

  async deleteCalculatedField(organizationId: string, id: string, fieldId: string): Promise<void> {
    await this.change(organizationId, id, (source) => {
      if (!source.recordSchema.calculatedFields.some((c) => c.id === fieldId)) throw new NotFoundError('Calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: source.recordSchema.calculatedFields.filter((c) => c.id !== fieldId) };
      return 'none';
    });
  }

  /** Window dimensions have indexes of their own (partition and order), so each change re-indexes. */
  async addWindowDimension(organizationId: string, id: string, body: Omit<WindowDimension, 'id'>): Promise<WindowDimension> {
    const dimension = { id: newId(), ...body };
    await this.change(organizationId, id, (source) => {
      const unsupported = windowUnsupportedReason(source);
      if (unsupported) throw new ValidationError(`This source cannot have window dimensions: ${unsupported}`, undefined, 'window_unsupported');
      throwIfAny(windowDimensionIssues(source.recordSchema, source.windowDimensions, body), 'Invalid window dimension');
      source.windowDimensions = [...source.windowDimensions, dimension];
      return 'reindex';
    });
    return dimension;
  }

  async updateWindowDimension(organizationId: string, id: string, fieldId: string, patch: Partial<Omit<WindowDimension, 'id'>>): Promise<WindowDimension> {
    let updated: WindowDimension | undefined;
    await this.change(organizationId, id, (source) => {
      const current = source.windowDimensions.find((w) => w.id === fieldId);
      if (!current) throw new NotFoundError('Window dimension');
      const next = { ...current, ...patch };
      throwIfAny(windowDimensionIssues(source.recordSchema, source.windowDimensions, next), 'Invalid window dimension');
      source.windowDimensions = source.windowDimensions.map((w) => (w.id === fieldId ? next : w));
      updated = next;
      return 'reindex';
    });
    return updated!;
  }

  async deleteWindowDimension(organizationId: string, id: string, fieldId: string): Promise<void> {
    await this.change(organizationId, id, (source) => {
      if (!source.windowDimensions.some((w) => w.id === fieldId)) throw new NotFoundError('Window dimension');
      source.windowDimensions = source.windowDimensions.filter((w) => w.id !== fieldId);
      return 'reindex';
    });
  }

  /** One change to a source, on its locked row (see DataSourcesRepository.update); 404 when it is not the caller's. */
  private async change(organizationId: string, id: string, apply: (source: AnalyticsSource) => RelationChange): Promise<AnalyticsSource> {
    const source = await this.repository.update(organizationId, id, apply);
    if (!source) throw new NotFoundError('Data source');
    return source;
  }
}
