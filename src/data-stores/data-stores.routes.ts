import type { Request } from 'express';
import { AppError } from '../errors/errors';
import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { uploadStream } from '../http/upload';
import { z } from '../openapi/zod';
import {
  CreateTableBody,
  ImportQuery,
  ImportResult,
  InsertRecordBody,
  PatchRecordBody,
  PutRecordBody,
  ReadRecordsQuery,
  RecordPage,
  RecordParams,
  RecordSchema,
  TableParams,
  TableSchema,
  UpsertBody,
} from './data-stores.schemas';
import { presentRecord, presentTable } from './data-stores.presenter';
import type { DataStoresService } from './data-stores.service';
import { IMPORT_FORMATS, type ImportFormat } from './import-formats';

const tags = ['Data stores'];

/** The import format from Content-Type; 415 names the accepted ones. */
function importFormat(req: Request): ImportFormat {
  const type = req.is(Object.keys(IMPORT_FORMATS));
  if (!type) {
    throw new AppError(415, 'unsupported_media_type', `Send the file as one of: ${Object.keys(IMPORT_FORMATS).join(', ')}`);
  }
  return IMPORT_FORMATS[type as keyof typeof IMPORT_FORMATS];
}

export function registerDataStoreRoutes(ctx: RouteContext, service: DataStoresService, importLimitBytes: number): void {
  const oneRecord = { 200: { description: 'The record', schema: RecordSchema } };

  defineRoute(ctx, {
    method: 'get',
    path: '/data-stores',
    permission: 'workflows:view',
    tags,
    query: PageQuery,
    summary: 'Every record of the organization across tables, __meta__ rows included, by table then key',
    responses: { 200: { description: 'Records', schema: z.object({ total: z.number().int(), data: z.array(RecordSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.listAll(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentRecord) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/data-stores',
    permission: 'workflows:admin',
    tags,
    body: InsertRecordBody,
    summary: 'Insert one record (not an upsert); creates the table if needed',
    responses: { 201: { description: 'Created', schema: RecordSchema }, 409: { description: 'A live record has this key (code record_exists)' } },
    handler: async ({ auth, body: { tableName, ...write } }) => ({
      status: 201,
      body: presentRecord(await service.insert(auth.organizationId, tableName, write)),
    }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/data-stores/tables',
    permission: 'workflows:view',
    tags,
    query: PageQuery,
    summary: 'Tables by name, with their live record counts (the __meta__ row not counted)',
    responses: { 200: { description: 'Tables', schema: z.object({ total: z.number().int(), data: z.array(TableSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.listTables(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(presentTable) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/data-stores/tables',
    permission: 'workflows:admin',
    tags,
    body: CreateTableBody,
    summary: 'Create an empty table',
    responses: { 201: { description: 'Created', schema: TableSchema }, 409: { description: 'The table exists (code table_exists)' } },
    handler: async ({ auth, body }) => ({ status: 201, body: presentTable(await service.createTable(auth.organizationId, body.tableName)) }),
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/data-stores/tables/:tableName',
    permission: 'workflows:view',
    tags,
    params: TableParams,
    query: ReadRecordsQuery,
    summary: "Read a table's records in key order, filtered by key prefix and value conditions",
    responses: { 200: { description: 'A page of records', schema: RecordPage } },
    handler: async ({ auth, params, query }) => {
      const page = await service.read(auth.organizationId, params.tableName, query);
      return { status: 200, body: { ...page, data: page.data.map(presentRecord) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/data-stores/tables/:tableName',
    permission: 'workflows:admin',
    tags,
    params: TableParams,
    body: UpsertBody,
    summary: 'Upsert one record, or many under `records`; creates the table if needed',
    responses: {
      200: {
        description: 'One record replaced (single form), or the outcome of a batch',
        schema: z.union([RecordSchema, z.object({ created: z.number().int(), updated: z.number().int(), data: z.array(RecordSchema) })]),
      },
      201: { description: 'One record created (single form)', schema: RecordSchema },
    },
    handler: async ({ auth, params, body }) => {
      if ('records' in body) {
        const outcome = await service.upsert(auth.organizationId, params.tableName, body.records);
        return {
          status: 200,
          body: { created: outcome.created, updated: outcome.updated, data: outcome.records.map((r) => presentRecord(r.record)) },
        };
      }
      const [{ record, created }] = (await service.upsert(auth.organizationId, params.tableName, [body])).records;
      return { status: created ? 201 : 200, body: presentRecord(record) };
    },
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/data-stores/tables/:tableName',
    permission: 'workflows:admin',
    tags,
    params: TableParams,
    summary: 'Delete a table and every record in it',
    responses: {
      200: { description: 'Deleted', schema: z.object({ tableName: z.string(), deletedRecords: z.number().int() }) },
    },
    handler: async ({ auth, params }) => ({ status: 200, body: await service.deleteTable(auth.organizationId, params.tableName) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/data-stores/tables/:tableName/import',
    permission: 'workflows:admin',
    tags,
    params: TableParams,
    query: ImportQuery,
    rawBody: {
      contentTypes: Object.keys(IMPORT_FORMATS),
      description:
        'The file as the raw body (curl --data-binary @file), optionally gzip-compressed with Content-Encoding: gzip. ' +
        'CSV: a header row, a key column, other columns become value fields. JSON: an array of records ' +
        '({key, value, expiresAt?, ttlSeconds?, recordTimestamp?}). NDJSON: one such record per line.',
    },
    summary: 'Import a CSV, JSON or NDJSON file, all or nothing (upserts; a key may appear once per file)',
    responses: {
      200: { description: 'Every record imported', schema: ImportResult },
      413: { description: 'Larger than the import limit' },
      415: { description: 'Unsupported Content-Type or Content-Encoding' },
    },
    handler: async ({ auth, params, query }, req) => {
      const format = importFormat(req);
      const source = uploadStream(req, importLimitBytes);
      const result = await service.importRecords(auth.organizationId, params.tableName, source, format, query);
      return { status: 200, body: result };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/data-stores/tables/:tableName/records/:key',
    permission: 'workflows:view',
    tags,
    params: RecordParams,
    summary: 'Read one record by key (URL-encode the key)',
    responses: oneRecord,
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentRecord(await service.get(auth.organizationId, params.tableName, params.key)),
    }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/data-stores/tables/:tableName/records/:key',
    permission: 'workflows:admin',
    tags,
    params: RecordParams,
    body: PutRecordBody,
    summary: 'Create or replace one record by key',
    responses: { ...oneRecord, 201: { description: 'Created', schema: RecordSchema } },
    handler: async ({ auth, params, body }) => {
      const [{ record, created }] = (await service.upsert(auth.organizationId, params.tableName, [{ ...body, key: params.key }])).records;
      return { status: created ? 201 : 200, body: presentRecord(record) };
    },
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/data-stores/tables/:tableName/records/:key',
    permission: 'workflows:admin',
    tags,
    params: RecordParams,
    body: PatchRecordBody,
    summary: 'Update one record: value fields are merged into the stored value (top level); expiry and recordTimestamp replaced when given',
    responses: oneRecord,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentRecord(await service.patch(auth.organizationId, params.tableName, params.key, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/data-stores/tables/:tableName/records/:key',
    permission: 'workflows:admin',
    tags,
    params: RecordParams,
    summary: 'Delete one record by key',
    responses: { 200: { description: 'The deleted record', schema: RecordSchema } },
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentRecord(await service.delete(auth.organizationId, params.tableName, params.key)),
    }),
  });
}
