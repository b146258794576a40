import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import { RecordFilter } from './record-filter';

/** The marker row that registers a table; the table routes never show it. */
export const META_KEY = '__meta__';
export const MAX_KEY_LENGTH = 255;
/** Serialized JSON size of one record's value. */
export const MAX_VALUE_BYTES = 256 * 1024;
/** Records per JSON write request; larger loads go through the import route. */
export const MAX_RECORDS_PER_WRITE = 1000;
export const MAX_TTL_SECONDS = 10 * 366 * 24 * 3600;

export const TableName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,62}$/, 'must be 1 to 63 characters: a letter, then letters, digits, _ or -')
  .openapi({ example: 'orders' });

// Keys of the form __name__ are reserved for marker rows such as __meta__.
const RESERVED_KEY = /^__.*__$/s;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const noControlCharacters = (text: string) => !CONTROL_CHARACTER.test(text);

export const RecordKey = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_KEY_LENGTH, `must be at most ${MAX_KEY_LENGTH} characters`)
  .refine(noControlCharacters, 'must not contain control characters')
  .refine((k) => k.isWellFormed(), 'must not contain an unpaired surrogate (an escape such as \\ud800 that is no character)')
  .refine((k) => !RESERVED_KEY.test(k), 'keys of the form __name__ are reserved')
  .openapi({ example: 'order:2026-0001' });

// Checked, not rebuilt: z.record would copy the object and silently drop a "__proto__" field.
export const RecordValue = z
  .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be a JSON object')
  .openapi({ type: 'object', description: `A JSON object of at most ${MAX_VALUE_BYTES / 1024} KiB once serialized` });

const Timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone' });

const expiryFields = {
  expiresAt: Timestamp.nullable().optional().openapi({ description: 'When the record expires (must be in the future); null or absent: never' }),
  ttlSeconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_TTL_SECONDS)
    .optional()
    .openapi({ description: 'Expire this many seconds after the write; instead of expiresAt' }),
};

const oneExpiry = (r: { expiresAt?: string | null; ttlSeconds?: number }) => r.expiresAt == null || r.ttlSeconds === undefined;
const oneExpiryIssue = { path: ['ttlSeconds'], message: 'give expiresAt or ttlSeconds, not both' };

/** One record as every write takes it: the API, imports and workflow steps. */
export const WriteRecord = z
  .strictObject({
    key: RecordKey,
    value: RecordValue,
    ...expiryFields,
    recordTimestamp: Timestamp.optional().openapi({ description: 'The time the record describes; defaults to the write time' }),
  })
  .refine(oneExpiry, oneExpiryIssue)
  .openapi('WriteRecord');
export type WriteRecordInput = z.output<typeof WriteRecord>;

export const InsertRecordBody = z
  .strictObject({
    tableName: TableName,
    key: RecordKey,
    value: RecordValue,
    ...expiryFields,
    recordTimestamp: Timestamp.optional(),
  })
  .refine(oneExpiry, oneExpiryIssue)
  .openapi('InsertRecord');

export const UpsertBody = z
  .union([WriteRecord, z.strictObject({ records: z.array(WriteRecord).min(1).max(MAX_RECORDS_PER_WRITE) }).openapi('WriteRecords')])
  .openapi('UpsertRecords', { description: `One record, or up to ${MAX_RECORDS_PER_WRITE} under \`records\`` });

/** PUT replaces a record's value whole; the key comes from the path. */
export const PutRecordBody = z
  .strictObject({ value: RecordValue, ...expiryFields, recordTimestamp: Timestamp.optional() })
  .refine(oneExpiry, oneExpiryIssue)
  .openapi('PutRecord');

/** PATCH merges `value` into the stored value (top-level fields replaced) and may change the expiry. */
export const PatchRecordBody = z
  .strictObject({ value: RecordValue.optional(), ...expiryFields, recordTimestamp: Timestamp.optional() })
  .refine(oneExpiry, oneExpiryIssue)
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field', path: [] })
  .openapi('PatchRecord');
export type PatchRecordInput = z.output<typeof PatchRecordBody>;

export const CreateTableBody = z.strictObject({ tableName: TableName }).openapi('CreateTable');

export const TableParams = z.object({ tableName: TableName });
export const RecordParams = z.object({ tableName: TableName, key: RecordKey });

const booleanParam = z.enum(['true', 'false']).transform((v) => v === 'true');

export const ReadRecordsQuery = PageQuery.extend({
  prefix: z
    .string()
    .max(MAX_KEY_LENGTH)
    .refine(noControlCharacters, 'must not contain control characters')
    .optional()
    .openapi({ description: 'Only keys starting with this text (case-sensitive)' }),
  where: z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? undefined : RecordFilter.parseJson(text, ctx)))
    .openapi({
      type: 'string',
      description:
        'JSON object of value filters, all of which must hold: `{"status": "paid", "total": {"$gte": 100}}`. ' +
        'Field paths are dot-separated; operators: $eq, $ne, $gt, $gte, $lt, $lte, $in, $exists.',
    }),
  after: z
    .string()
    .max(MAX_KEY_LENGTH)
    .refine(noControlCharacters, 'must not contain control characters')
    .optional()
    .openapi({ description: 'Keyset cursor: only keys after this one (use nextAfter)' }),
  count: booleanParam.optional().openapi({ description: 'Also return `total`, the number of matching records' }),
});
export type ReadRecordsInput = z.output<typeof ReadRecordsQuery>;

export const ImportQuery = z.strictObject({
  keyColumn: z.string().min(1).max(200).default('key').openapi({ description: 'CSV only: the column holding the record key' }),
  types: z
    .enum(['infer', 'string'])
    .default('infer')
    .openapi({ description: 'CSV only: `infer` turns numbers, true/false and empty cells into JSON types; `string` keeps text' }),
});
export type ImportOptions = z.output<typeof ImportQuery>;

export const RecordSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    tableName: z.string(),
    key: z.string(),
    value: z.record(z.string(), z.unknown()),
    expiresAt: z.string().nullable(),
    recordTimestamp: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('DataStoreRecord');

export const TableSchema = z
  .object({
    tableName: z.string(),
    recordCount: z.number().int().openapi({ description: 'Live records, not counting the __meta__ row' }),
    createdVia: z.enum(['api', 'import', 'workflow']),
    createdAt: z.string(),
  })
  .openapi('DataStoreTable');

export const RecordPage = z
  .object({
    data: z.array(RecordSchema),
    nextAfter: z.string().nullable().openapi({ description: 'Pass as `after` for the next page; null on the last page' }),
    total: z.number().int().optional(),
  })
  .openapi('DataStoreRecordPage');

export const ImportResult = z
  .object({
    tableName: z.string(),
    format: z.enum(['csv', 'json', 'ndjson']),
    records: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
  })
  .openapi('DataStoreImportResult');
