import { parse as parseCsv } from 'csv-parse';
import { createInterface } from 'node:readline';
import { type Readable, pipeline } from 'node:stream';
import StreamArray from 'stream-json/streamers/StreamArray';
import type { ImportOptions } from './data-stores.schemas';

export const IMPORT_FORMATS = {
  'text/csv': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
} as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[keyof typeof IMPORT_FORMATS];

/** One row of an import file before validation; `position` is its line (CSV, NDJSON) or array index (JSON). */
export interface RawRow {
  position: number;
  record: unknown;
}

/** The file cannot be read as its format (broken quoting, invalid JSON, missing key column). */
export class ImportFormatError extends Error {}

/** How rows are located in error messages. */
export const POSITION_LABEL: Record<ImportFormat, string> = { csv: 'line', ndjson: 'line', json: 'item' };

/** Reads `source` as `format`, one row at a time, at the pace the consumer asks. */
export function readRows(format: ImportFormat, source: Readable, options: ImportOptions): AsyncIterable<RawRow> {
  switch (format) {
    case 'csv':
      return csvRows(source, options);
    case 'json':
      return jsonArrayRows(source);
    case 'ndjson':
      return ndjsonRows(source);
  }
}

// Columns with these names set the record's own fields instead of going into its value.
const RECORD_COLUMNS = ['expiresAt', 'ttlSeconds', 'recordTimestamp'];
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * CSV with a header row. The key column (default `key`) becomes the record
 * key; a custom key column also stays in the value, since it is data.
 * `expiresAt`, `ttlSeconds` and `recordTimestamp` columns set those fields;
 * every other column becomes a value field.
 */
async function* csvRows(source: Readable, options: ImportOptions): AsyncGenerator<RawRow> {
  const parser = parseCsv({ bom: true, info: true, skip_empty_lines: true });
  pipeline(source, parser, () => undefined);
  let header: string[] | undefined;
  let keyIndex = -1;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = record.map((h) => h.trim());
        keyIndex = checkHeader(header, options.keyColumn);
        continue;
      }
      const value: Record<string, unknown> = {};
      const row: Record<string, unknown> = { key: record[keyIndex], value };
      header.forEach((column, i) => {
        const cell = record[i];
        if (RECORD_COLUMNS.includes(column)) {
          if (cell !== '') row[column] = column === 'ttlSeconds' ? inferCell(cell) : cell;
        } else if (i !== keyIndex || column !== 'key') {
          value[column] = options.types === 'infer' ? inferCell(cell) : cell;
        }
      });
      yield { position: info.lines, record: row };
    }
  } catch (err) {
    throw formatFailure(source, err, 'CSV');
  }
  if (!header) throw new ImportFormatError('CSV: the file is empty; expected a header row with a "key" column');
}

function checkHeader(header: string[], keyColumn: string): number {
  const empty = header.findIndex((h) => h === '');
  if (empty >= 0) throw new ImportFormatError(`CSV: header column ${empty + 1} has no name`);
  const repeated = header.find((h, i) => header.indexOf(h) !== i);
  if (repeated !== undefined) throw new ImportFormatError(`CSV: header names column "${repeated}" twice`);
  const keyIndex = header.indexOf(keyColumn);
  if (keyIndex < 0) {
    throw new ImportFormatError(`CSV: the header has no "${keyColumn}" column (it has ${header.map((h) => `"${h}"`).join(', ')})`);
  }
  return keyIndex;
}

/** Numbers, true/false and empty cells become JSON types; integers too large to keep exactly stay text. */
function inferCell(cell: string): unknown {
  if (cell === '') return null;
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  if (JSON_NUMBER.test(cell)) {
    const n = Number(cell);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n) || /[.eE]/.test(cell))) return n;
  }
  return cell;
}

/** A JSON array of records, streamed item by item. */
async function* jsonArrayRows(source: Readable): AsyncGenerator<RawRow> {
  const items = StreamArray.withParser();
  pipeline(source, items, () => undefined);
  try {
    for await (const { key, value } of items as AsyncIterable<{ key: number; value: unknown }>) {
      yield { position: key, record: value };
    }
  } catch (err) {
    throw formatFailure(source, err, 'JSON', '; expected an array of records');
  }
}

/**
 * The error to report when reading stopped: the source's own (too large,
 * aborted, bad gzip) as it is, otherwise the parser's as a format error.
 */
function formatFailure(source: Readable, err: unknown, label: string, hint = ''): Error {
  if (source.errored) return source.errored;
  if (err instanceof ImportFormatError) return err;
  return new ImportFormatError(`${label}: ${(err as Error).message}${hint}`);
}

/** Newline-delimited JSON: one record per line, blank lines skipped. */
async function* ndjsonRows(source: Readable): AsyncGenerator<RawRow> {
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (err) {
      lines.close();
      throw new ImportFormatError(`NDJSON line ${line}: ${(err as Error).message}`);
    }
    yield { position: line, record };
  }
}
