import { parse as parseCsv } from 'csv-parse';
import { type Readable, pipeline, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import StreamArray from 'stream-json/streamers/StreamArray';
import { AppError } from '../errors/errors';
import { type ImportOptions, MAX_VALUE_BYTES } from './data-stores.schemas';

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

/** No valid record is longer: a value's limit plus room for the key and the other fields. */
const MAX_LINE_CHARACTERS = MAX_VALUE_BYTES + 64 * 1024;

// Rows travel in batches: one promise per batch instead of one per row is most of an import's CPU.
const BATCH_ROWS = 1000;
const PARSED_ROWS_BUFFERED = { readableHighWaterMark: BATCH_ROWS };

/** Reads `source` as `format` in batches of rows, at the pace the consumer asks. */
export function readRows(format: ImportFormat, source: Readable, options: ImportOptions): AsyncIterable<RawRow[]> {
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
const RECORD_COLUMNS = new Set(['expiresAt', 'ttlSeconds', 'recordTimestamp']);
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * CSV with a header row. The key column (default `key`) becomes the record
 * key; a custom key column also stays in the value, since it is data.
 * `expiresAt`, `ttlSeconds` and `recordTimestamp` columns set those fields;
 * every other column becomes a value field.
 */
async function* csvRows(source: Readable, options: ImportOptions): AsyncGenerator<RawRow[]> {
  const parser = parseCsv({ bom: true, info: true, skip_empty_lines: true, max_record_size: MAX_LINE_CHARACTERS, ...PARSED_ROWS_BUFFERED });
  pipeline(source, parser, () => undefined);
  let columns: Array<{ name: string; role: 'key' | 'record' | 'value' | 'key+value' }> | undefined;
  const infer = options.types === 'infer';
  // A row is reported at the line it starts on: after the previous row's last line and any blank lines skipped since.
  let previous = { lines: 0, empty_lines: 0 };
  try {
    for await (const parsed of batches<{ record: string[]; info: typeof previous }>(parser)) {
      const rows: RawRow[] = [];
      for (const { record, info } of parsed) {
        const firstLine = previous.lines + 1 + (info.empty_lines - previous.empty_lines);
        previous = info;
        if (!columns) {
          columns = headerColumns(record, options.keyColumn);
          continue;
        }
        // No prototype: a column named __proto__ is a field like any other.
        const value: Record<string, unknown> = Object.create(null);
        const row: Record<string, unknown> = { value };
        for (let i = 0; i < columns.length; i++) {
          const { name, role } = columns[i];
          const cell = record[i];
          if (role === 'key' || role === 'key+value') row.key = cell;
          if (role === 'value' || role === 'key+value') value[name] = infer ? inferCell(cell) : cell;
          else if (role === 'record' && cell !== '') row[name] = name === 'ttlSeconds' ? inferCell(cell) : cell;
        }
        rows.push({ position: firstLine, record: row });
      }
      if (rows.length) yield rows;
    }
  } catch (err) {
    throw formatFailure(source, err, 'CSV');
  }
  if (!columns) throw new ImportFormatError('CSV: the file is empty; expected a header row with a "key" column');
}

function headerColumns(header: string[], keyColumn: string) {
  const names = header.map((h) => h.trim());
  const empty = names.indexOf('');
  if (empty >= 0) throw new ImportFormatError(`CSV: header column ${empty + 1} has no name`);
  const repeated = names.find((h, i) => names.indexOf(h) !== i);
  if (repeated !== undefined) throw new ImportFormatError(`CSV: header names column "${repeated}" twice`);
  if (!names.includes(keyColumn)) {
    throw new ImportFormatError(`CSV: the header has no "${keyColumn}" column (it has ${names.map((h) => `"${h}"`).join(', ')})`);
  }
  return names.map((name) => ({
    name,
    role:
      name === keyColumn ? (name === 'key' ? ('key' as const) : ('key+value' as const)) : RECORD_COLUMNS.has(name) ? ('record' as const) : ('value' as const),
  }));
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
async function* jsonArrayRows(source: Readable): AsyncGenerator<RawRow[]> {
  const items = StreamArray.withParser(PARSED_ROWS_BUFFERED);
  pipeline(source, items, () => undefined);
  try {
    for await (const parsed of batches<{ key: number; value: unknown }>(items)) {
      yield parsed.map(({ key, value }) => ({ position: key, record: value }));
    }
  } catch (err) {
    throw formatFailure(source, err, 'JSON', '; expected an array of records');
  }
}

/** Newline-delimited JSON: one record per line, blank lines skipped. */
async function* ndjsonRows(source: Readable): AsyncGenerator<RawRow[]> {
  const lines = lineSplitter();
  pipeline(source, lines, () => undefined);
  try {
    for await (const batch of batches<{ line: number; text: string }>(lines)) {
      const rows: RawRow[] = [];
      for (const { line, text } of batch) {
        try {
          rows.push({ position: line, record: JSON.parse(text) });
        } catch (err) {
          throw new ImportFormatError(`NDJSON line ${line}: ${(err as Error).message}`);
        }
      }
      yield rows;
    }
  } catch (err) {
    throw formatFailure(source, err, 'NDJSON');
  }
}

/**
 * Splits text into its non-blank lines (\n or \r\n), numbered from 1. Only
 * new text is searched for line ends, and a line longer than any valid
 * record could be is refused rather than buffered on.
 */
function lineSplitter(): Transform {
  let pending: string[] = [];
  let pendingLength = 0;
  let line = 0;
  const decoder = new StringDecoder('utf8');
  const emit = (stream: Transform, text: string) => {
    line++;
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim() !== '') stream.push({ line, text: trimmed });
  };
  const take = (stream: Transform, text: string): Error | undefined => {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      emit(stream, pending.join('') + text.slice(start, end));
      pending = [];
      pendingLength = 0;
      start = end + 1;
    }
    pending.push(text.slice(start));
    pendingLength += text.length - start;
    return pendingLength > MAX_LINE_CHARACTERS ? new ImportFormatError(`NDJSON line ${line + 1}: longer than ${MAX_LINE_CHARACTERS} characters`) : undefined;
  };
  return new Transform({
    readableObjectMode: true,
    ...PARSED_ROWS_BUFFERED,
    transform(chunk: Buffer, _encoding, done) {
      done(take(this, decoder.write(chunk)));
    },
    flush(done) {
      const rest = pending.join('') + decoder.end();
      if (rest !== '') emit(this, rest);
      done();
    },
  });
}

/** Whatever an object-mode stream has buffered, as arrays; waits only when it has nothing. */
async function* batches<T>(stream: Readable): AsyncGenerator<T[]> {
  for (;;) {
    const batch: T[] = [];
    let item: T | null;
    while (batch.length < BATCH_ROWS && (item = stream.read()) !== null) batch.push(item);
    if (batch.length > 0) {
      yield batch;
      continue;
    }
    if (stream.readableEnded) return;
    if (stream.destroyed) throw stream.errored ?? new Error('the input stopped before its end');
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        stream.off('readable', settle).off('end', settle).off('close', settle).off('error', settle);
        if (err) reject(err);
        else resolve();
      };
      stream.on('readable', settle).on('end', settle).on('close', settle).on('error', settle);
    });
  }
}

/**
 * The error to report when reading stopped: the source's own (too large,
 * aborted, bad gzip) as it is, otherwise the parser's as a format error.
 */
function formatFailure(source: Readable, err: unknown, label: string, hint = ''): Error {
  // A failing parser destroys the source with its own error too; only the upload's own failures pass as they are.
  if (source.errored instanceof AppError) return source.errored;
  if (err instanceof AppError || err instanceof ImportFormatError) return err;
  return new ImportFormatError(`${label}: ${(err as Error).message}${hint}`);
}
