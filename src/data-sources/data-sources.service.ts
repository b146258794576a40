import { type FieldIssue, NotFoundError, ValidationError } from '../errors/errors';
import type { DataStoresService } from '../data-stores/data-stores.service';
import type { SharesRepository } from '../shares/shares.repository';
import { newId, newSuid } from '../ids';
import { AnalyticsSource, type SyncConfig } from './analytics-source.entity';
import { assertNotBuiltIn, BUILT_IN_SOURCES } from './built-in-sources';
import type { DataSourcesRepository, RelationChange } from './data-sources.repository';
import {
  MAX_FIELDS,
  type CalculatedField,
  type CreateDataSourceBody,
  type InferFieldsBody,
  type PatchDataSourceBody,
  type RecordSchema,
  type RecordSchemaInput,
} from './data-sources.schemas';
import { newFieldsFrom } from './field-inference';
import { modelIssues } from './schema-rules';
import { physicalShape, SERVING_ENGINE, servingRelationName, timeField } from './serving-relation';

/** Records read by refresh-schema. */
const SAMPLE_SIZE = 1000;
/** How many skipped names an inference answer lists. */
const MAX_SKIPPED_NAMES = 50;

function toRecordSchema(input: RecordSchemaInput, keep: CalculatedField[] = []): RecordSchema {
  return {
    name: input.name,
    fields: input.fields,
    calculatedFields: input.calculatedFields ? input.calculatedFields.map((c) => ({ ...c, id: c.id ?? newId() })) : keep,
  };
}

function shareInactive(tableName: string, ownerId: string): ValidationError {
  return new ValidationError(
    `No active share of table "${tableName}" from organization ${ownerId} to this one (GET /dashboards/shares/received lists them)`,
    [{ path: 'sharedFromOrganizationId', message: 'no active share covers this table' }],
    'share_inactive',
  );
}

function revokedReason(source: AnalyticsSource): string {
  return `the share of table "${source.dataStoreTableName}" from organization ${source.sharedFromOrganizationId} has been revoked`;
}

type Grant = { id: string; alias: string; sharedToOrganizationId: string };

/** 400 share_dependency naming the active shares of the table. */
function shareDependency(tableName: string, grants: readonly Grant[], what: string): ValidationError {
  const named = grants.map((g) => `share ${g.id} (as "${g.alias}" to organization ${g.sharedToOrganizationId})`);
  return new ValidationError(
    `Table "${tableName}" is shared with ${grants.length} organization(s): ${named.join(', ')}; ${what}. Revoke the share(s) first`,
    grants.map((g) => ({ path: 'shares', message: `share ${g.id} depends on table "${tableName}"` })),
    'share_dependency',
  );
}

/**
 * While a table is shared, the owner's sources over it are its published
 * schema: a new schema may add fields, but not re-key it (time dimension) or
 * drop or retype a field.
 */
function assertKeepsSharedData(source: AnalyticsSource, next: RecordSchema, grants: readonly Grant[]): void {
  const from = timeField(source.recordSchema);
  const to = timeField(next);
  if (from !== to)
    throw shareDependency(source.dataStoreTableName, grants, `changing the time dimension from "${from}" to "${to}" would re-key the data as it is shared`);
  const lost = Object.entries(source.recordSchema.fields)
    .filter(([name, f]) => next.fields[name]?.type !== f.type)
    .map(([name]) => name);
  if (lost.length > 0)
    throw shareDependency(source.dataStoreTableName, grants, `removing or retyping field(s) ${lost.join(', ')} would drop data from what is shared`);
}

/** 400 with every issue found, or nothing. */
export function throwIfAny(issues: FieldIssue[], message: string): void {
  if (issues.length > 0) throw new ValidationError(message, issues);
}

/** What a new source is made of, whoever creates it. */
export interface NewSource {
  name: string;
  type: string;
  dataStoreTableName: string;
  recordSchema: RecordSchemaInput;
  enabled: boolean;
  hotPathMode: AnalyticsSource['hotPathMode'];
  connectionId?: string;
  connectionName?: string;
  sharedFromOrganizationId?: string;
  shareId?: string;
  syncConfig?: SyncConfig;
}

/** Sources one organization may build over one share: each is a copy the owner's writes keep up to date. */
export const MAX_SOURCES_PER_SHARE = 5;

/** The most distinct source ids one lookup reads: 200 widgets and 50 filters, with room to spare. */
export const MAX_LOOKUP_IDS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Data sources over data store tables: creating, changing and deleting them,
 * who may read them (shares), and the life of their serving relations. Their
 * calculated fields and window dimensions are SourceMembersService's; the
 * sources data feeds fill are FeedSourcesService's.
 */
export class DataSourcesService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly dataStores: Pick<DataStoresService, 'tableExists'>,
    private readonly shares: Pick<SharesRepository, 'findReceived' | 'receivedTable' | 'activeIds' | 'grantedForTable' | 'isActive'>,
  ) {}

  list(organizationId: string): Promise<AnalyticsSource[]> {
    return this.repository.list(organizationId);
  }

  async get(organizationId: string, id: string): Promise<AnalyticsSource> {
    const source = await this.repository.find(organizationId, id);
    if (!source) throw new NotFoundError('Data source');
    return source;
  }

  /** The organization's built-in sources over its runs, by type (built-in-sources.ts). */
  async builtIns(organizationId: string): Promise<Map<string, AnalyticsSource>> {
    const found = await this.repository.findBuiltIns(
      organizationId,
      BUILT_IN_SOURCES.map((b) => b.type),
    );
    return new Map(found.map((s) => [s.type, s]));
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
    if (body.sharedFromOrganizationId) return this.createShared(organizationId, userId, body, body.sharedFromOrganizationId);
    if (!(await this.dataStores.tableExists(organizationId, body.dataStoreTableName))) {
      const received = await this.shares.receivedTable(organizationId, body.dataStoreTableName);
      throw new ValidationError(
        received
          ? `Data store table "${body.dataStoreTableName}" is shared with this organization by ${received.ownerOrganizationId}: send sharedFromOrganizationId: "${received.ownerOrganizationId}" to read it`
          : `Data store table "${body.dataStoreTableName}" does not exist`,
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
   * A source over a table another organization shares with this one: it
   * reads the owner's records (its serving relation follows their writes)
   * for as long as the share is active. `dataStoreTableName` may be the
   * owner's name of the table or its alias here.
   */
  private async createShared(organizationId: string, userId: string | null, body: CreateDataSourceBody, ownerId: string): Promise<AnalyticsSource> {
    const share = await this.shares.findReceived(organizationId, ownerId, body.dataStoreTableName);
    if (!share) throw shareInactive(body.dataStoreTableName, ownerId);
    // Each source over a share is a copy the owner's every write also updates, in the owner's transaction.
    if ((await this.repository.countByShare(share.id)) >= MAX_SOURCES_PER_SHARE) {
      throw new ValidationError(
        `At most ${MAX_SOURCES_PER_SHARE} data sources may read one share; delete one of this organization's sources over "${body.dataStoreTableName}" first`,
        [{ path: 'sharedFromOrganizationId', message: 'too many sources over this share' }],
        'share_source_limit',
      );
    }
    // The share row is held until the source is committed: a revocation racing this waits, then closes the new source too.
    const stillShared = async (m: Parameters<SharesRepository['isActive']>[0]) => {
      if (!(await this.shares.isActive(m, share.id, true))) throw shareInactive(body.dataStoreTableName, ownerId);
    };
    return this.build(
      organizationId,
      userId,
      {
        name: body.name,
        type: body.type,
        dataStoreTableName: share.tableName,
        recordSchema: body.recordSchema,
        enabled: body.enabled,
        hotPathMode: body.hotPathMode,
        sharedFromOrganizationId: ownerId,
        shareId: share.id,
      },
      stillShared,
    );
  }

  /** A new source of any kind, its model checked, its serving relation built (the feed sources create theirs through it). */
  build(organizationId: string, userId: string | null, input: NewSource, guard?: Parameters<DataSourcesRepository['create']>[1]): Promise<AnalyticsSource> {
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
      shareId: input.shareId ?? null,
      tableOrganizationId: input.sharedFromOrganizationId ?? organizationId,
      recordSchema,
      windowDimensions: [],
      syncConfig: input.syncConfig ?? null,
      enabled: input.enabled,
      servingEngine: SERVING_ENGINE,
      servingRelation: servingRelationName(id),
      hotPathMode: input.hotPathMode,
    });
    return this.repository.create(source, guard);
  }

  /**
   * Renames, enables or disables, and replaces the record schema. A schema
   * whose fields change rebuilds the serving relation; a new time dimension
   * needs `confirmTimeFieldRekey` because the relation is re-keyed (rewritten
   * in the new time order and re-indexed), which takes a while on big tables.
   */
  async update(organizationId: string, id: string, patch: PatchDataSourceBody): Promise<AnalyticsSource> {
    const rebuilds = patch.recordSchema !== undefined || patch.enabled === true;
    const before = rebuilds ? await this.get(organizationId, id) : undefined;
    if (before) await this.assertReadable([before]);
    // Other organizations read this table through shares: what they read must keep its keys and fields.
    const grants = patch.recordSchema && before && !before.shareId ? await this.shares.grantedForTable(organizationId, before.dataStoreTableName) : [];
    return this.change(organizationId, id, (source) => {
      let rebuild = false;
      if (patch.recordSchema) {
        const next = toRecordSchema(patch.recordSchema, source.recordSchema.calculatedFields);
        throwIfAny(modelIssues(next, source.windowDimensions), 'The new record schema breaks calculated fields or window dimensions of this source');
        if (grants.length > 0) assertKeepsSharedData(source, next, grants);
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
    const source = await this.get(organizationId, id);
    assertNotBuiltIn(source, 'be deleted');
    if (!source.shareId) {
      const grants = await this.shares.grantedForTable(organizationId, source.dataStoreTableName);
      if (grants.length > 0) throw shareDependency(source.dataStoreTableName, grants, 'deleting this data source would remove what they read');
    }
    if (!(await this.repository.delete(organizationId, id))) throw new NotFoundError('Data source');
    // The delete has committed: a listener failing (Temporal unreachable) is logged, not answered (a feed's next beat deletes its own schedule).
    await this.deletedListener?.(source).catch((err: unknown) => this.deletedListenerFailed(source, err));
  }

  /**
   * The sources among `sources` that cannot be read any more, with the
   * reason: today, sources over a table whose share has been revoked. One
   * query, and none when no source reads a shared table.
   */
  async unreadable(sources: readonly AnalyticsSource[]): Promise<Map<string, string>> {
    const shareIds = [...new Set(sources.map((s) => s.shareId).filter((id): id is string => id !== null))];
    if (shareIds.length === 0) return new Map();
    const active = await this.shares.activeIds(shareIds);
    return new Map(sources.filter((s) => s.shareId !== null && !active.has(s.shareId)).map((s) => [s.id, revokedReason(s)]));
  }

  /** 400 share_inactive when one of the sources reads a share that has been revoked: never empty or stale rows instead (interface.md 7.3). */
  async assertReadable(sources: readonly AnalyticsSource[]): Promise<void> {
    const [first] = (await this.unreadable(sources)).entries();
    if (!first) return;
    const [id, reason] = first;
    const source = sources.find((s) => s.id === id)!;
    throw new ValidationError(
      `Data source "${source.name}" (${source.servingRelation}) cannot be read: ${reason}`,
      [{ path: 'dataSourceId', message: reason }],
      'share_inactive',
    );
  }

  /**
   * Adds the fields that sampled records hold and the schema lacks; flags,
   * labels and calculated fields of the known ones are kept. With no records
   * there is nothing to sample and the source is unchanged.
   */
  async refreshSchema(organizationId: string, id: string) {
    const sampled = await this.get(organizationId, id);
    assertNotBuiltIn(sampled, "have its schema refreshed: its fields are the runs' own");
    await this.assertReadable([sampled]);
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

  /**
   * The fields a new source over the table would have, inferred from its
   * newest records (at most SAMPLE_SIZE), as refresh-schema infers them: the
   * console's "New data source" form starts from them. The table is the
   * organization's own, or, with `sharedFromOrganizationId`, one an active
   * share lets it read; any other name is 400 unknown_table, never another
   * organization's records.
   */
  async inferFields(organizationId: string, body: InferFieldsBody): Promise<{ fields: RecordSchema['fields']; skipped: string[]; sampled: number }> {
    const table = await this.readableTable(organizationId, body);
    const samples = await this.repository.sampleTable(table.organizationId, table.name, SAMPLE_SIZE);
    const { fields, skipped } = newFieldsFrom(samples, new Set());
    // What a source can hold (MAX_FIELDS) and a readable list of the names left out: the answer stays small whatever the records.
    const inferred = Object.entries(fields);
    const kept = Object.fromEntries(inferred.slice(0, MAX_FIELDS));
    // Fields past the limit are left out like the unusable ones: listed, so the form can say a source cannot hold them all.
    const leftOut = [...skipped, ...inferred.slice(MAX_FIELDS).map(([name]) => name)];
    const shortSkipped = leftOut.slice(0, MAX_SKIPPED_NAMES).map((name) => (name.length > 100 ? `${name.slice(0, 100)}…` : name));
    return { fields: kept, skipped: shortSkipped, sampled: samples.length };
  }

  /** Where the records of a table the organization names live: its own table, or the owner's table behind an active share. */
  private async readableTable(organizationId: string, body: InferFieldsBody): Promise<{ organizationId: string; name: string }> {
    if (body.sharedFromOrganizationId) {
      const share = await this.shares.findReceived(organizationId, body.sharedFromOrganizationId, body.dataStoreTableName);
      if (!share) throw shareInactive(body.dataStoreTableName, body.sharedFromOrganizationId);
      return { organizationId: share.ownerOrganizationId, name: share.tableName };
    }
    if (!(await this.dataStores.tableExists(organizationId, body.dataStoreTableName))) {
      throw new ValidationError(
        `Data store table "${body.dataStoreTableName}" does not exist`,
        [{ path: 'dataStoreTableName', message: 'no such table' }],
        'unknown_table',
      );
    }
    return { organizationId, name: body.dataStoreTableName };
  }

  async reindex(organizationId: string, id: string): Promise<void> {
    await this.change(organizationId, id, () => 'reindex');
  }

  /**
   * One change to a source, on its locked row (see DataSourcesRepository.update);
   * 404 when it is not the caller's. Its members (SourceMembersService) change through it too.
   */
  async change(organizationId: string, id: string, apply: (source: AnalyticsSource) => RelationChange): Promise<AnalyticsSource> {
    // A re-index or rebuild takes the owner table's lock (and a rebuild refills from the owner's records): a closed source
    // gets neither, checked under the row lock, which a revocation also takes.
    // A built-in source is refused under its row lock, whatever the change (built-in-sources.ts).
    const guarded = (source: AnalyticsSource) => {
      assertNotBuiltIn(source, 'be changed');
      return apply(source);
    };
    const source = await this.repository.update(organizationId, id, guarded, async (m, s) => {
      if (s.shareId && !(await this.shares.isActive(m, s.shareId, false))) throw shareInactive(s.dataStoreTableName, s.sharedFromOrganizationId!);
    });
    if (!source) throw new NotFoundError('Data source');
    return source;
  }

  /** Called after a source is deleted (data feeds delete its schedule); one listener, whose failures are logged (the delete has committed). */
  onDeleted(listener: (source: AnalyticsSource) => Promise<void>, log: { warn(fields: object, message: string): void }): void {
    this.deletedListener = listener;
    this.deletedListenerLog = log;
  }

  private deletedListener?: (source: AnalyticsSource) => Promise<void>;
  private deletedListenerLog?: { warn(fields: object, message: string): void };

  private deletedListenerFailed(source: AnalyticsSource, err: unknown): void {
    const fields = { dataSourceId: source.id, organizationId: source.organizationId, err: err instanceof Error ? err.message : String(err) };
    const message = 'data source deleted, but its delete listener failed';
    this.deletedListenerLog?.warn(fields, message);
  }
}
