import { TableName } from '../data-stores/data-stores.schemas';
import { z } from '../openapi/zod';

/**
 * Names of fields, calculated fields and window dimensions: they become Cube
 * member names (`ds_<id>.<name>`) and serving-table columns, so they are
 * identifiers. A leading letter keeps them clear of the serving table's own
 * `__key` / `__expires_at` columns.
 */
export const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
export const FieldName = z
  .string()
  .regex(FIELD_NAME, 'must be 1 to 63 characters: a letter, then letters, digits or _')
  .refine((n) => !RESERVED_MEMBERS.has(n), 'is reserved (the record count measure)')
  .openapi({ example: 'amount' });
/** Members every source has. */
export const RESERVED_MEMBERS = new Set(['count']);

export const FIELD_TYPES = ['date', 'string', 'number'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FieldDefinition = z
  .strictObject({
    type: z.enum(FIELD_TYPES),
    label: z.string().min(1).max(200),
    measure: z.boolean().optional(),
    timeDimension: z.boolean().optional(),
  })
  .refine((f) => !f.measure || f.type === 'number', { message: 'only number fields can be measures', path: ['measure'] })
  .refine((f) => !f.timeDimension || f.type === 'date', { message: 'only date fields can be the time dimension', path: ['timeDimension'] });
export type FieldDefinition = z.output<typeof FieldDefinition>;

/** Expression trees of calculated fields (interface.md 2.7), as an editor's parser produces them. */
export type Expression =
  | { type: 'BinaryExpression'; operator: BinaryOperator; left: Expression; right: Expression }
  | { type: 'Identifier'; name: string }
  | { type: 'Literal'; value: number; raw?: string };
export const BINARY_OPERATORS = ['+', '-', '*', '/', '%'] as const;
export type BinaryOperator = (typeof BINARY_OPERATORS)[number];

export const Expression: z.ZodType<Expression> = z
  .lazy(() =>
    z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('BinaryExpression'), operator: z.enum(BINARY_OPERATORS), left: Expression, right: Expression }),
      z.strictObject({ type: z.literal('Identifier'), name: z.string().min(1).max(63) }),
      z.strictObject({ type: z.literal('Literal'), value: z.number(), raw: z.string().max(100).optional() }),
    ]),
  )
  .openapi('Expression', { description: 'BinaryExpression {operator, left, right}, Identifier {name} or Literal {value, raw}' });

// Without defaults: a PATCH must leave out what the caller left out (zod's partial() would still fill defaults in).
const calculatedFieldFields = {
  name: FieldName,
  label: z.string().min(1).max(200),
  type: z.literal('number', { error: 'calculated fields are arithmetic: type must be "number"' }),
  expression: Expression,
  formula: z.string().max(2000),
  measure: z.boolean(),
};
export const CalculatedFieldBody = z.strictObject({
  ...calculatedFieldFields,
  formula: calculatedFieldFields.formula.default(''),
  measure: calculatedFieldFields.measure.default(false),
});
export const CalculatedFieldPatch = z.strictObject(calculatedFieldFields).partial();
export const CalculatedField = z.strictObject({ id: z.uuid(), ...calculatedFieldFields });
export type CalculatedField = z.output<typeof CalculatedField>;

export const PreviewBody = z.strictObject({ expression: Expression, type: z.literal('number').default('number') });

const windowDimensionFields = {
  name: FieldName,
  label: z.string().min(1).max(200),
  function: z.literal('row_number', { error: 'the window function supported is "row_number"' }),
  partitionBy: z.array(z.string()).max(8),
  orderBy: z.string(),
  direction: z.enum(['asc', 'desc']),
  semantic: z.literal('lifetime', { error: 'the semantic supported is "lifetime"' }),
};
export const WindowDimensionBody = z.strictObject({
  ...windowDimensionFields,
  partitionBy: windowDimensionFields.partitionBy.default([]),
  direction: windowDimensionFields.direction.default('asc'),
  semantic: windowDimensionFields.semantic.default('lifetime'),
});
export const WindowDimensionPatch = z.strictObject(windowDimensionFields).partial();
export const WindowDimension = z.strictObject({ id: z.uuid(), ...windowDimensionFields });
export type WindowDimension = z.output<typeof WindowDimension>;

export const MAX_FIELDS = 200;
const fieldMap = z.record(z.string(), FieldDefinition).superRefine((fields, ctx) => {
  const names = Object.keys(fields);
  if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'at least one field is needed' });
  if (names.length > MAX_FIELDS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_FIELDS} fields` });
  for (const name of names) {
    const parsed = FieldName.safeParse(name);
    if (!parsed.success) ctx.addIssue({ code: 'custom', path: [name], message: `field name ${parsed.error.issues[0].message}` });
  }
  const time = names.filter((n) => fields[n].timeDimension);
  if (time.length !== 1) {
    ctx.addIssue({ code: 'custom', message: `exactly one date field must have timeDimension: true (found ${time.length ? time.join(', ') : 'none'})` });
  }
});

/** The record schema as given on create and PATCH; calculated fields may come with it or through their own routes. */
export const RecordSchemaInput = z.strictObject({
  name: z.string().min(1).max(200),
  fields: fieldMap,
  calculatedFields: z
    .array(CalculatedFieldBody.extend({ id: z.uuid().optional() }))
    .max(100)
    .optional(),
});
export type RecordSchemaInput = z.output<typeof RecordSchemaInput>;

export interface RecordSchema {
  name: string;
  fields: Record<string, FieldDefinition>;
  calculatedFields: CalculatedField[];
}

/** `retain`: the serving relation keeps a typed copy of every live record, updated in the writing transaction. */
export const HOT_PATH_MODES = ['retain'] as const;

export const CreateDataSourceBody = z.strictObject({
  name: z.string().min(1).max(200),
  type: z.string().min(1).max(100).default('custom'),
  dataStoreTableName: TableName,
  recordSchema: RecordSchemaInput,
  sharedFromOrganizationId: z.uuid().optional(),
  hotPathMode: z.enum(HOT_PATH_MODES).default('retain'),
  enabled: z.boolean().default(true),
});
export type CreateDataSourceBody = z.output<typeof CreateDataSourceBody>;

export const PatchDataSourceBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  enabled: z.boolean().optional(),
  recordSchema: RecordSchemaInput.optional(),
  hotPathMode: z.enum(HOT_PATH_MODES).optional(),
  confirmTimeFieldRekey: z.boolean().optional(),
});
export type PatchDataSourceBody = z.output<typeof PatchDataSourceBody>;

/** A table to infer fields from before a source exists over it: one of the organization's own, or one shared with it. */
export const InferFieldsBody = z
  .strictObject({
    dataStoreTableName: TableName,
    sharedFromOrganizationId: z
      .uuid()
      .optional()
      .openapi({ description: 'The owner of a table shared with this organization (GET /dashboards/shares/received)' }),
  })
  .openapi('InferFieldsRequest');
export type InferFieldsBody = z.output<typeof InferFieldsBody>;

export const InferredFields = z
  .object({
    fields: z.record(z.string(), FieldDefinition).openapi({
      description: 'Each field seen in the sampled records with its type and a label; number fields are measures, and no field is the time dimension yet',
    }),
    skippedFields: z.array(z.string()).openapi({ description: 'Names seen that cannot be field names (not identifiers, or reserved)' }),
    sampledRecords: z.number().int().openapi({ description: 'How many of the newest records were read (at most 1000)' }),
  })
  .openapi('InferredFields');

export const DataSourceParams = z.strictObject({ dataSourceId: z.uuid({ error: 'must be a UUID' }) });
export const MemberParams = DataSourceParams.extend({ fieldId: z.uuid({ error: 'must be a UUID' }) });

export const DataSourceSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    userId: z.uuid().nullable(),
    name: z.string(),
    type: z.string(),
    connectionId: z.uuid().nullable(),
    connectionName: z.string().nullable(),
    dataStoreTableName: z.string(),
    sharedFromOrganizationId: z.uuid().nullable(),
    recordSchema: z.object({ name: z.string(), fields: z.record(z.string(), FieldDefinition), calculatedFields: z.array(CalculatedField) }),
    windowDimensions: z.array(WindowDimension),
    syncConfig: z
      .object({
        syncIntervalMinutes: z.number(),
        lastSyncAt: z.string().nullable(),
        lastSyncStatus: z.enum(['running', 'success', 'failed']).nullable(),
        syncedThrough: z.string().nullable().optional(),
        lastSyncWindow: z.object({ startDate: z.string(), endDate: z.string() }).nullable().optional(),
        lastSyncError: z.string().nullable().optional(),
        lastSyncRecords: z
          .object({ created: z.number(), updated: z.number(), unchanged: z.number().optional(), deleted: z.number().optional() })
          .nullable()
          .optional()
          .openapi({ description: 'created: new keys; updated: values that changed; unchanged: read again as they were; deleted: gone at the vendor' }),
        lookbackMinutes: z.number().optional().openapi({ description: "How far before syncedThrough a sync without dates starts; absent: the feed's default" }),
        lastReconciledAt: z.string().nullable().optional().openapi({ description: 'When deletions at the vendor were last reconciled' }),
      })
      .nullable()
      .openapi({ description: 'Feed-backed sources only: the interval, and what the last sync did (lastSyncStatus running, success or failed)' }),
    enabled: z.boolean(),
    servingEngine: z.string(),
    servingRelation: z.string(),
    hotPathMode: z.enum(HOT_PATH_MODES),
    effectiveHotPathMode: z.enum([...HOT_PATH_MODES, 'paused']),
    builtIn: z.boolean().openapi({
      description:
        "A built-in, read-only source over the organization's own runs (type flowbase:runs or flowbase:run-steps): it cannot be changed or deleted (400 source_read_only)",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('DataSource');
