import type { Readable } from 'node:stream';
import { ConflictError, type FieldIssue, NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { toFieldIssues } from '../http/validation';
import { BulkImportRepository, DuplicateImportKeys, ImportDeadlocked, type ImportRow } from './bulk-import.repository';
import type { EntityManager } from 'typeorm';
import { SharesRepository } from '../shares/shares.repository';
import { tracedMethods } from '../observability/traced-methods';
import { DataStoresRepository, type StagedRecord, type StoredRecord, type TableOrigin, type TableSummary } from './data-stores.repository';
import { type ImportOptions, type PatchRecordInput, type ReadRecordsInput, WriteRecord, type WriteRecordInput } from './data-stores.schemas';
import { type ImportFormat, ImportFormatError, POSITION_LABEL, readRows } from './import-formats';
import { type RecordWrite, repeatedKeys, stageRecord } from './record-staging';

/** Past this many bad rows an import stops reading: the report would not get more useful. */
const MAX_REPORTED_ROWS = 100;

export interface WriteOutcome {
  created: number;
  updated: number;
  records: Array<{ record: StoredRecord; created: boolean }>;
}

/**
 * Data store tables and their records. The API routes and the workflow
 * engine's data store steps both call this service, so every write is
 * validated and stored the same way whoever makes it.
 */
export class DataStoresService {
  constructor(
    private readonly records: DataStoresRepository,
    private readonly bulk: BulkImportRepository,
    private readonly shares: Pick<SharesRepository, 'receivedTable' | 'grantedForTable'>,
  ) {}

  listAll(organizationId: string, page: Page) {
    return this.records.listAll(organizationId, page);
  }

  /** Plain insert: a live record with the same key is a conflict and stays as it is. */
  async insert(organizationId: string, tableName: string, write: WriteRecordInput, origin: TableOrigin = 'api'): Promise<StoredRecord> {
    // Checked before staging as well as by the write itself: a bad record for a shared table is told it is read-only.
    await this.assertWritable(organizationId, tableName);
    const result = await this.records.insert(organizationId, tableName, stage(write), origin);
    if ('readOnlyShareId' in result) throw readOnlyTable(tableName, result.readOnlyShareId);
    const [record] = result.written;
    if (!record) throw new ConflictError(`A record with key "${write.key}" already exists in table "${tableName}"`, 'record_exists');
    return record;
  }

  /** Inserts or replaces records (each key at most once); the table is created on first write. */
  async upsert(organizationId: string, tableName: string, writes: WriteRecordInput[], origin: TableOrigin = 'api'): Promise<WriteOutcome> {
    const repeats = repeatedKeys(writes.map((w) => w.key));
    if (repeats.size > 0) {
      throw new ValidationError(
        'A key may appear only once per write',
        [...repeats].map(([key, at]) => ({ path: `records.${at[1]}.key`, message: `"${key}" is also at records.${at[0]}` })),
        'duplicate_keys',
      );
    }
    const now = new Date();
    const staged = writes.map((w, i) => stage(w, now, writes.length > 1 ? `records.${i}` : ''));
    // The write itself refuses a read-only shared table: no separate check, one round trip.
    const result = await this.records.upsert(organizationId, tableName, staged, origin);
    if ('readOnlyShareId' in result) throw readOnlyTable(tableName, result.readOnlyShareId);
    const records = result.written;
    const created = records.filter((r) => r.created).length;
    return { created, updated: records.length - created, records };
  }

  async get(organizationId: string, tableName: string, key: string): Promise<StoredRecord> {
    const record = await this.find(organizationId, tableName, key);
    if (!record) throw new NotFoundError('Record');
    return record;
  }

  /** The live record, or null. */
  async find(organizationId: string, tableName: string, key: string): Promise<StoredRecord | null> {
    const table = await this.readTarget(organizationId, tableName);
    return this.records.find(table.organizationId, table.tableName, key);
  }

  /** Merges `value` into the stored value (top-level fields) and applies the other fields given. */
  async patch(organizationId: string, tableName: string, key: string, patch: PatchRecordInput): Promise<StoredRecord> {
    await this.assertWritable(organizationId, tableName);
    const record = await this.records.modify(organizationId, tableName, key, (current) => {
      const staged = stage({ key, ...patch, value: { ...current.value, ...patch.value } });
      const keepsExpiry = patch.expiresAt === undefined && patch.ttlSeconds === undefined;
      return keepsExpiry ? { ...staged, expiresAt: current.expiresAt } : staged;
    });
    if (!record) throw new NotFoundError('Record');
    return record;
  }

  async delete(organizationId: string, tableName: string, key: string): Promise<StoredRecord> {
    await this.assertWritable(organizationId, tableName);
    const record = await this.records.deleteRecord(organizationId, tableName, key);
    if (!record) throw new NotFoundError('Record');
    return record;
  }

  /** The live values of some keys of one of the organization's own tables (a data feed comparing what it read with what it holds). */
  valuesOf(organizationId: string, tableName: string, keys: string[]): Promise<Map<string, Record<string, unknown>>> {
    return this.records.valuesOf(organizationId, tableName, keys);
  }

  /** Deletes these keys from one of the organization's own tables (a data feed mirroring deletions); answers how many went. */
  async deleteKeys(organizationId: string, tableName: string, keys: string[]): Promise<number> {
    await this.assertWritable(organizationId, tableName);
    return this.records.deleteKeys(organizationId, tableName, keys);
  }

  /** A page of a table's records in key order; `nextAfter` continues after it. */
  async read(organizationId: string, readName: string, q: ReadRecordsInput) {
    const { organizationId: tableOrganizationId, tableName } = await this.readTarget(organizationId, readName);
    const query = { prefix: q.prefix, after: q.after, where: q.where, limit: q.limit + 1, offset: q.offset };
    const [rows, total] = await Promise.all([
      this.records.query(tableOrganizationId, tableName, query),
      // The total counts the whole filtered set, not what is left after the cursor.
      q.count ? this.records.count(tableOrganizationId, tableName, { prefix: q.prefix, where: q.where }) : Promise.resolve(undefined),
    ]);
    // Records imply their table; only an empty answer needs the registry (a count per read would not scale).
    if (rows.length === 0 && !(await this.records.tableExists(tableOrganizationId, tableName))) {
      throw new NotFoundError(`Table "${readName}"`);
    }
    const data = rows.slice(0, q.limit);
    return { data, nextAfter: rows.length > q.limit ? data[data.length - 1].key : null, total };
  }

  async createTable(organizationId: string, tableName: string, origin: TableOrigin = 'api'): Promise<TableSummary> {
    await this.assertWritable(organizationId, tableName);
    if (!(await this.records.createTable(organizationId, tableName, origin))) {
      throw new ConflictError(`Table "${tableName}" already exists`, 'table_exists');
    }
    return this.getTable(organizationId, tableName);
  }

  /** Whether the organization has a table of its own by that name (shared tables do not count). */
  tableExists(organizationId: string, tableName: string): Promise<boolean> {
    return this.records.tableExists(organizationId, tableName);
  }

  async getTable(organizationId: string, tableName: string): Promise<TableSummary> {
    const target = await this.readTarget(organizationId, tableName);
    const table = await this.records.findTable(target.organizationId, target.tableName);
    if (!table) throw new NotFoundError(`Table "${tableName}"`);
    return table;
  }

  listTables(organizationId: string, page: Page) {
    return this.records.listTables(organizationId, page);
  }

  async deleteTable(organizationId: string, tableName: string): Promise<{ tableName: string; deletedRecords: number }> {
    await this.assertWritable(organizationId, tableName);
    const grants = await this.shares.grantedForTable(organizationId, tableName);
    if (grants.length > 0) {
      throw new ValidationError(
        `Table "${tableName}" is shared with ${grants.length} organization(s) (${grants.map((g) => `share ${g.id} as "${g.alias}"`).join(', ')}); revoke the share(s) before deleting it`,
        grants.map((g) => ({ path: 'tableName', message: `share ${g.id} depends on this table` })),
        'share_dependency',
      );
    }
    const deleted = await this.records.deleteTable(organizationId, tableName);
    if (!deleted) throw new NotFoundError(`Table "${tableName}"`);
    return { tableName, ...deleted };
  }

  /**
   * Imports a file all or nothing. Every row is validated as a write; if any
   * row is bad (or a key repeats) nothing is kept and the error lists the
   * rows at fault by line or item number.
   */
  async importRecords(organizationId: string, tableName: string, source: Readable, format: ImportFormat, options: ImportOptions) {
    const label = POSITION_LABEL[format];
    const issues: FieldIssue[] = [];
    const now = new Date();
    let records = 0;

    async function* validRows(): AsyncGenerator<ImportRow[]> {
      for await (const batch of readRows(format, source, options)) {
        const valid: ImportRow[] = [];
        for (const { position, record } of batch) {
          records++;
          const at = `${label} ${position}`;
          const parsed = WriteRecord.safeParse(record);
          const staged = parsed.success ? stageRecord(parsed.data, now, at) : toFieldIssues(parsed.error, [at]);
          if (Array.isArray(staged)) {
            issues.push(...staged);
            if (issues.length >= MAX_REPORTED_ROWS) return;
          } else {
            valid.push({ ...staged, position });
          }
        }
        // Once a row is bad nothing will be kept; the rest is only read to report problems.
        if (issues.length === 0) yield valid;
      }
    }

    try {
      await this.assertWritable(organizationId, tableName);
      const counts = await this.bulk.importRecords(
        organizationId,
        tableName,
        checkedAtEnd(validRows(), () => {
          if (issues.length > 0) throw rejected(issues.slice(0, MAX_REPORTED_ROWS), records);
          if (records === 0) throw new ValidationError('The file holds no records; nothing was imported', undefined, 'import_empty');
        }),
      );
      return { tableName, format, records, ...counts };
    } catch (err) {
      if (err instanceof ImportFormatError) throw new ValidationError(`${err.message}; nothing was imported`, undefined, 'import_unreadable');
      if (err instanceof ImportDeadlocked) {
        throw new ConflictError('Other writes to the same records ran during the import; nothing was imported, try again', 'write_conflict');
      }
      if (err instanceof DuplicateImportKeys) {
        throw rejected(
          err.duplicates.map(({ key, rows }) => ({
            path: `${label} ${rows[1]}.key`,
            message: `"${key}" repeats ${label} ${rows[0]}; a key may appear once per import`,
          })),
          records,
        );
      }
      throw err;
    } finally {
      // Stops reading an upload that failed midway; the rest of the request is drained, not parsed.
      if (!source.readableEnded) source.destroy();
    }
  }

  /**
   * Where a read of `tableName` goes: the owner's table when the name is the
   * alias of a share this organization receives and it has no table of its
   * own by that name (checked on every read, so a revoked share stops
   * answering at once), else the organization's own table. An organization's
   * own tables always win: a share pushed to it can never hide them.
   */
  private async readTarget(organizationId: string, tableName: string): Promise<{ organizationId: string; tableName: string }> {
    const shared = await this.receivedOnly(organizationId, tableName);
    return shared ? { organizationId: shared.ownerOrganizationId, tableName: shared.tableName } : { organizationId, tableName };
  }

  /** Shared tables are read-only: no write, import, delete or purge through their alias, by any route or workflow step. */
  private async assertWritable(organizationId: string, tableName: string): Promise<void> {
    const shared = await this.receivedOnly(organizationId, tableName);
    if (shared) throw readOnlyTable(tableName, shared.shareId);
  }

  /** The received share the name stands for, unless the organization has a table of its own by that name. */
  private async receivedOnly(organizationId: string, tableName: string) {
    const shared = await this.shares.receivedTable(organizationId, tableName);
    if (!shared || (await this.records.tableExists(organizationId, tableName))) return null;
    return shared;
  }
}

/** The service over its repositories, as the API and the worker both build it: over the pool's manager, or a transaction's (a package install). */
export function dataStoresService(manager: EntityManager): DataStoresService {
  const records = tracedMethods(new DataStoresRepository(manager), 'datastore', TRACED_QUERIES, { 'db.system': 'postgresql' });
  return new DataStoresService(records, new BulkImportRepository(manager), new SharesRepository(manager));
}

/** The record reads and writes a trace shows beneath the step or request that made them. */
const TRACED_QUERIES = ['upsert', 'insert', 'find', 'modify', 'deleteRecord', 'valuesOf', 'deleteKeys', 'query', 'count'] as const;

/** Yields everything from `rows`, then runs `atEnd`, which may throw to abort the import before it commits. */
async function* checkedAtEnd<T>(rows: AsyncIterable<T>, atEnd: () => void): AsyncGenerator<T> {
  yield* rows;
  atEnd();
}

/** The 400 of any write to a table this organization receives read-only through share `shareId`. */
function readOnlyTable(tableName: string, shareId: string): ValidationError {
  return new ValidationError(
    `Table "${tableName}" is shared with this organization read-only (share ${shareId}); it cannot be written, imported into or deleted here. ` +
      'To use the name for a table of your own, remove the received share (DELETE /dashboards/shares/{id})',
    [{ path: 'tableName', message: 'read-only shared table' }],
    'shared_table_read_only',
  );
}

function rejected(details: FieldIssue[], records: number): ValidationError {
  return new ValidationError(
    `Import rejected: ${details.length}${details.length >= MAX_REPORTED_ROWS ? '+' : ''} problem(s) in ${records} record(s) read; nothing was imported`,
    details,
    'import_rejected',
  );
}

/** Stages one write or throws the 400 naming its problems. */
function stage(write: RecordWrite, now = new Date(), at = ''): StagedRecord {
  const staged = stageRecord(write, now, at);
  if (Array.isArray(staged)) throw new ValidationError('Invalid record', staged);
  return staged;
}
