import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, withQuery } from '../../api/client';
import type { ApiSchema } from '../../api/schemas';
import { ErrorBox } from '../../ui/error-box';
import { tablePath } from './data-types';
import { formatBytes, uploadFile, type UploadProgress } from './upload';
import './tables.css';

type ImportResult = ApiSchema<'DataStoreImportResult'>;
type Format = ImportResult['format'];

/** The Content-Type the import route reads each format from (src/data-stores/import-formats.ts). */
const CONTENT_TYPE: Record<Format, string> = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' };
const FORMAT_LABEL: Record<Format, string> = {
  csv: 'CSV (a header row, one record per line)',
  json: 'JSON (an array of records)',
  ndjson: 'NDJSON (one record per line)',
};

/** What to import and how: the file, its format, and for CSV the key column and whether cells are typed. */
export interface ImportChoice {
  file: File | null;
  format: Format;
  /** CSV: the column holding each record's key. */
  keyColumn: string;
  /** CSV: numbers, true/false and empty cells read as such (the API's `types=infer`), else every cell is text. */
  inferTypes: boolean;
  /** CSV: the header's column names, read from the file in the browser to offer as key columns. */
  header?: string[];
}

export const emptyChoice = (): ImportChoice => ({ file: null, format: 'csv', keyColumn: 'key', inferTypes: true });

function formatOf(name: string): Format | undefined {
  const extension = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (extension === 'csv') return 'csv';
  if (extension === 'json') return 'json';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  return undefined;
}

/** The names of a CSV header line (quoted names with commas or doubled quotes included). */
export function csvHeader(text: string): string[] {
  const names: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      names.push(current.trim());
      current = '';
    } else if (ch === '\n' || ch === '\r') break;
    else current += ch;
  }
  names.push(current.trim());
  return names.filter((n) => n !== '');
}

/** Reads the first line of a CSV file (up to 64 KB of it) without reading the rest. */
async function readHeader(file: File): Promise<string[]> {
  const text = await file.slice(0, 64 * 1024).text();
  return csvHeader(text.replace(/^\uFEFF/, ''));
}

/** The file input and its options. The key column is chosen among the header's columns, read in the browser. */
export function ImportFileFields({ idPrefix, choice, onChange }: { idPrefix: string; choice: ImportChoice; onChange(next: ImportChoice): void }) {
  async function pick(file: File | null, chosenFormat?: Format) {
    const format = chosenFormat ?? (file ? (formatOf(file.name) ?? choice.format) : choice.format);
    const header = file && format === 'csv' ? await readHeader(file).catch(() => undefined) : undefined;
    const keyColumn = header?.length ? (header.includes('key') ? 'key' : header[0]) : 'key';
    onChange({ ...choice, file, format, header, keyColumn });
  }
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-file`}>File</label>
        <input
          id={`${idPrefix}-file`}
          type="file"
          accept=".csv,.json,.ndjson,.jsonl,text/csv,application/json"
          aria-describedby={`${idPrefix}-file-help`}
          onChange={(e) => void pick(e.target.files?.[0] ?? null)}
        />
        <span id={`${idPrefix}-file-help`} className="help">
          CSV, JSON or NDJSON. The import is all or nothing: a file with a bad row imports nothing and names the rows at fault. Existing keys are replaced.
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-format`}>Format</label>
        <select id={`${idPrefix}-format`} value={choice.format} onChange={(e) => void pick(choice.file, e.target.value as Format)}>
          {(Object.keys(FORMAT_LABEL) as Format[]).map((f) => (
            <option key={f} value={f}>
              {FORMAT_LABEL[f]}
            </option>
          ))}
        </select>
      </div>
      {choice.format === 'csv' ? (
        <>
          <div className="field">
            <label htmlFor={`${idPrefix}-key`}>Key column</label>
            {choice.header?.length ? (
              <select id={`${idPrefix}-key`} value={choice.keyColumn} onChange={(e) => onChange({ ...choice, keyColumn: e.target.value })}>
                {choice.header.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            ) : (
              <input id={`${idPrefix}-key`} value={choice.keyColumn} onChange={(e) => onChange({ ...choice, keyColumn: e.target.value })} required />
            )}
            <span className="help">
              Each row&apos;s key; the other columns become the record&apos;s fields (a column other than &quot;key&quot; also stays one).
            </span>
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={choice.inferTypes} onChange={(e) => onChange({ ...choice, inferTypes: e.target.checked })} /> Read numbers,
            true/false and empty cells as such (otherwise every cell is text)
          </label>
        </>
      ) : (
        <p className="help">Each item: {'{"key": "…", "value": {…}}'}, optionally with expiresAt, ttlSeconds or recordTimestamp.</p>
      )}
    </>
  );
}

export type ImportState =
  | { phase: 'idle' }
  | { phase: 'uploading'; progress: UploadProgress }
  | { phase: 'done'; result: ImportResult }
  | { phase: 'failed'; error: unknown; file?: File; format?: Format };

/**
 * Runs imports and tracks the one in flight. Leaving the page stops an upload still sending: an import is all or
 * nothing, so a cut upload lands nothing (a file already sent is imported by the server all the same).
 */
export function useImport() {
  const [state, setState] = useState<ImportState>({ phase: 'idle' });
  const controller = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => controller.current?.abort(), []);

  async function start(tableName: string, choice: ImportChoice): Promise<ImportResult | undefined> {
    if (!choice.file) {
      setState({ phase: 'failed', error: new Error('Choose a file to import') });
      return undefined;
    }
    controller.current?.abort();
    controller.current = new AbortController();
    setState({ phase: 'uploading', progress: { sent: 0, total: choice.file.size, sentAll: false } });
    const query = choice.format === 'csv' ? { keyColumn: choice.keyColumn, types: choice.inferTypes ? 'infer' : 'string' } : undefined;
    try {
      const result = await uploadFile<ImportResult>(
        withQuery(`${tablePath(tableName)}/import`, query),
        choice.file,
        CONTENT_TYPE[choice.format],
        (progress) => setState({ phase: 'uploading', progress }),
        controller.current.signal,
      );
      setState({ phase: 'done', result });
      return result;
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) setState({ phase: 'failed', error, file: choice.file, format: choice.format });
      return undefined;
    }
  }
  return { state, start, busy: state.phase === 'uploading', fail: (error: unknown) => setState({ phase: 'failed', error }) };
}

/** A rejected import's problems by row: the API names each as `line 3.key` (CSV, NDJSON) or `item 2.value` (JSON). */
export function rowProblems(error: ApiError): Array<{ row: string; field: string; message: string }> {
  return error.details.map((d) => {
    const match = /^((?:line|item) \d+)(?:\.(.*))?$/.exec(d.path);
    return match ? { row: match[1], field: match[2] ?? '', message: d.message } : { row: '', field: d.path, message: d.message };
  });
}

/** Where the import stands: the upload's progress, then the server's answer; a rejected file's problems row by row. */
export function ImportStatus({ state, tableName }: { state: ImportState; tableName: string }) {
  return (
    <div className="import-status" aria-live="polite">
      {state.phase === 'uploading' && <UploadBar progress={state.progress} />}
      {state.phase === 'done' && (
        <p className="notice" role="status">
          Imported {state.result.records.toLocaleString()} {state.result.records === 1 ? 'record' : 'records'} into{' '}
          <Link to={`/data/tables/${encodeURIComponent(tableName)}`}>{state.result.tableName}</Link>: {state.result.created.toLocaleString()} created,{' '}
          {state.result.updated.toLocaleString()} updated.
        </p>
      )}
      {state.phase === 'failed' &&
        (state.error instanceof ApiError && state.error.code === 'import_rejected' ? (
          <RejectedRows error={state.error} file={state.file} format={state.format} />
        ) : (
          <ErrorBox error={state.error} />
        ))}
    </div>
  );
}

function UploadBar({ progress }: { progress: UploadProgress }) {
  const percent = progress.total ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <div className="upload-progress">
      <progress max={100} value={progress.sentAll ? 100 : percent} aria-label="Upload progress" />
      <span>
        {progress.sentAll
          ? `Sent ${formatBytes(progress.total)}; the server is importing it…`
          : `Uploading… ${percent}% (${formatBytes(progress.sent)} of ${formatBytes(progress.total)})`}
      </span>
    </div>
  );
}

/** Files up to this size are read again in the browser to show each rejected row as it is written. */
const MAX_QUOTED_BYTES = 5_000_000;
const QUOTED_CHARS = 120;

/** The text of the rows the API names (`line 3`: the file's line; `item 2`: the JSON array's item), cut to fit a cell. */
async function quoteRows(file: File, format: Format, rows: string[]): Promise<Map<string, string>> {
  const quoted = new Map<string, string>();
  if (file.size > MAX_QUOTED_BYTES) return quoted;
  const text = (await file.text()).replace(/^\uFEFF/, '');
  const cut = (t: string) => (t.length > QUOTED_CHARS ? `${t.slice(0, QUOTED_CHARS - 1)}…` : t);
  if (format === 'json') {
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch {
      return quoted;
    }
    if (!Array.isArray(items)) return quoted;
    for (const row of rows) {
      const index = Number(/^item (\d+)$/.exec(row)?.[1] ?? NaN);
      if (index < items.length) quoted.set(row, cut(JSON.stringify(items[index]) ?? ''));
    }
    return quoted;
  }
  const lines = text.split('\n');
  for (const row of rows) {
    const line = Number(/^line (\d+)$/.exec(row)?.[1] ?? NaN);
    if (line >= 1 && line <= lines.length) quoted.set(row, cut(lines[line - 1].replace(/\r$/, '')));
  }
  return quoted;
}

function RejectedRows({ error, file, format }: { error: ApiError; file?: File; format?: Format }) {
  const problems = rowProblems(error);
  const [quoted, setQuoted] = useState<Map<string, string>>();
  useEffect(() => {
    if (!file || !format) return;
    let current = true;
    quoteRows(
      file,
      format,
      error.details.map((d) => d.path.split('.')[0]),
    ).then(
      (rows) => current && setQuoted(rows),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [error, file, format]);
  return (
    <div role="alert" className="error-box rejected-rows">
      <p>{error.message}</p>
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Rejected rows">
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Field</th>
              <th scope="col">Problem</th>
              {quoted && <th scope="col">In the file</th>}
            </tr>
          </thead>
          <tbody>
            {problems.map((p, i) => (
              <tr key={i}>
                <th scope="row">{p.row}</th>
                <td>
                  <code>{p.field}</code>
                </td>
                <td className="problem">{p.message}</td>
                {quoted && <td>{quoted.has(p.row) && <code className="quoted-row">{quoted.get(p.row)}</code>}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error.requestId && <p className="muted">Request {error.requestId}</p>}
    </div>
  );
}
