import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { get, post, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import { Page } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { useApi } from '../../ui/use-api';
import { DataTabs } from './data-tabs';
import { type DataRecord, type RecordPage, tablePath } from './data-types';
import { JsonValueForm } from './json-value-form';

const PAGE_SIZES = [25, 50, 100, 200];
const PREVIEW_CHARS = 140;

/** A value on one line, cut to fit a table cell. */
function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** One table's records in key order, filtered by key prefix and value conditions; the filters live in the URL. */
export function TablePage() {
  const { name = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const { can } = useSession();
  const prefix = params.get('prefix') ?? '';
  const where = params.get('where') ?? '';
  const limit = PAGE_SIZES.includes(Number(params.get('limit'))) ? Number(params.get('limit')) : PAGE_SIZES[0];
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const key = withQuery(tablePath(name), { prefix, where, limit, offset, count: true });
  // The page answered carries the offset it was asked for: the pager then describes the rows shown, not the ones still loading.
  const records = useApi(key, async (signal) => ({ ...(await get<RecordPage>(key, { signal })), offset, limit }));
  const [adding, setAdding] = useState(false);

  /** Changes some query parameters; a filter change starts again at the first page. */
  function update(changes: Record<string, string | null>) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  }

  return (
    <Page
      title={name}
      subtitle={
        <>
          <Link to="/data/tables">Tables</Link> / {name}
        </>
      }
      actions={
        can('workflows:admin') && !adding ? (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add record
          </button>
        ) : undefined
      }
    >
      <DataTabs />
      {adding && <AddRecord table={name} onDone={() => setAdding(false)} />}
      {/* Keyed by the URL's filters, so back/forward puts their text back into the inputs. */}
      <FilterForm key={`${prefix}\n${where}`} prefix={prefix} where={where} onApply={(p, w) => update({ prefix: p, where: w, offset: null })} />
      <ErrorBox error={records.error} />
      {!records.data && !records.error && <p className="page-status">Loading records…</p>}
      {records.data && (
        <>
          <p className="muted result-count" aria-live="polite">
            {records.loading
              ? 'Loading…'
              : `${(records.data.total ?? records.data.data.length).toLocaleString()} ${records.data.total === 1 ? 'record' : 'records'}${prefix || where ? ' match' : ''}`}
          </p>
          {records.data.data.length === 0 ? (
            <p className="empty-state">{prefix || where ? 'No record matches these filters.' : 'This table has no records.'}</p>
          ) : (
            <RecordTable table={name} records={records.data.data} busy={records.loading} search={params.toString()} />
          )}
          <div className="pager-row">
            <Pager
              offset={records.data.offset}
              limit={records.data.limit}
              total={records.data.total ?? 0}
              onChange={(next) => update({ offset: next ? String(next) : null })}
            />
            <div className="inline-field">
              <label htmlFor="page-size">Per page</label>
              <select id="page-size" value={limit} onChange={(e) => update({ limit: e.target.value, offset: null })}>
                {PAGE_SIZES.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </div>
          </div>
        </>
      )}
    </Page>
  );
}

function FilterForm({ prefix, where, onApply }: { prefix: string; where: string; onApply(prefix: string, where: string): void }) {
  const [draftPrefix, setDraftPrefix] = useState(prefix);
  const [draftWhere, setDraftWhere] = useState(where);
  const [problem, setProblem] = useState<string>();

  function submit(event: FormEvent) {
    event.preventDefault();
    const text = draftWhere.trim();
    if (text) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      } catch {
        setProblem('The value filter must be a JSON object, e.g. {"status": "paid", "total": {"$gte": 100}}');
        return;
      }
    }
    setProblem(undefined);
    onApply(draftPrefix, text);
  }

  return (
    <form className="filters" role="search" aria-label="Filter records" onSubmit={submit}>
      <div>
        <label htmlFor="filter-prefix">Key starts with</label>
        <input id="filter-prefix" value={draftPrefix} onChange={(e) => setDraftPrefix(e.target.value)} placeholder="order:2026-" />
      </div>
      <div className="grow">
        <label htmlFor="filter-where">Value filter (JSON)</label>
        <input
          id="filter-where"
          className="mono"
          value={draftWhere}
          onChange={(e) => setDraftWhere(e.target.value)}
          placeholder='{"status": "paid", "total": {"$gte": 100}}'
          aria-describedby="filter-where-help"
        />
        <span id="filter-where-help" className="help">
          Dot-separated field paths; operators $eq $ne $gt $gte $lt $lte $in $exists
        </span>
      </div>
      <div className="filter-buttons">
        <button type="submit" className="primary">
          Apply
        </button>
        {(prefix || where) && (
          <button type="button" onClick={() => onApply('', '')}>
            Clear
          </button>
        )}
      </div>
      {problem && (
        <p role="alert" className="error filter-problem">
          {problem}
        </p>
      )}
    </form>
  );
}

/** `search`: the table page's filters, handed to the record page so its way back keeps them. */
function RecordTable({ table, records, busy, search }: { table: string; records: DataRecord[]; busy: boolean; search: string }) {
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const toggle = (key: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <table className="list records" aria-busy={busy}>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Value</th>
          <th scope="col">Updated</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {records.map((r) => {
          const open = expanded.has(r.key);
          return (
            <tr key={r.key} data-key={r.key}>
              <th scope="row" className="record-key">
                <Link to={`/data/tables/${encodeURIComponent(table)}/records/${encodeURIComponent(r.key)}`} state={{ tableSearch: search }}>
                  {r.key}
                </Link>
              </th>
              <td className="record-value">
                {open ? <JsonView value={r.value} label={`Value of ${r.key}`} /> : <code className="json-preview">{preview(r.value)}</code>}
              </td>
              <td className="nowrap">{formatTime(r.updatedAt)}</td>
              <td>
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={open}
                  aria-label={`${open ? 'Collapse' : 'Expand'} ${r.key}`}
                  onClick={() => toggle(r.key)}
                >
                  {open ? 'Collapse' : 'Expand'}
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A new record: POST /data-stores inserts (409 if the key exists, so nothing is overwritten by mistake). */
function AddRecord({ table, onDone }: { table: string; onDone(): void }) {
  const [recordKey, setRecordKey] = useState('');
  const navigate = useNavigate();
  return (
    <section className="panel" aria-labelledby="add-record-heading">
      <h2 id="add-record-heading">New record</h2>
      <JsonValueForm
        id="new-record-value"
        label="Value (JSON object)"
        initial={{}}
        submitLabel="Add record"
        onCancel={onDone}
        onSubmit={async (value) => {
          await post('/data-stores', { tableName: table, key: recordKey, value });
          onDone();
          void navigate(`/data/tables/${encodeURIComponent(table)}/records/${encodeURIComponent(recordKey)}`);
        }}
      >
        <div className="field">
          <label htmlFor="new-record-key">Key</label>
          <input id="new-record-key" value={recordKey} onChange={(e) => setRecordKey(e.target.value)} required maxLength={255} />
        </div>
      </JsonValueForm>
    </section>
  );
}
