import { type FormEvent, useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { del, get, post, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import { Page } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { useApi } from '../../ui/use-api';
import { DataTabs } from './data-tabs';
import { type RecordPage, tablePath } from './data-types';
import { buildWhere, parseWhere } from './filter-conditions';
import { JsonValueForm } from './json-value-form';
import { filterFields } from './record-columns';
import { RecordFilterBuilder } from './record-filter-builder';
import { RecordTable } from './record-table';
import { emptyChoice, ImportFileFields, ImportStatus, useImport } from './table-import';
import './tables.css';

const PAGE_SIZES = [25, 50, 100, 200];
/** Records read to learn the table's fields and their types for the filter builder (the table has no schema). */
const FIELD_SAMPLE = 100;

/**
 * One table's records as columns, filtered by key prefix and value conditions
 * built from the table's fields; the filters live in the URL (`prefix`, and
 * `where` in the API's own filter language), so a filtered view can be shared
 * and reloaded.
 */
export function TablePage() {
  const { name = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const { can } = useSession();
  const admin = can('workflows:admin');
  const prefix = params.get('prefix') ?? '';
  const where = params.get('where') ?? '';
  const limit = PAGE_SIZES.includes(Number(params.get('limit'))) ? Number(params.get('limit')) : PAGE_SIZES[0];
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);

  const samplePath = withQuery(tablePath(name), { limit: FIELD_SAMPLE });
  const sample = useApi(samplePath, (signal) => get<RecordPage>(samplePath, { signal }));
  const fields = useMemo(() => filterFields(sample.data?.data.map((r) => r.value) ?? []), [sample.data]);
  const fieldsKnown = sample.data !== undefined || sample.error !== undefined;

  // The URL's filter is read against the fields' types (amount > "5" would match nothing): until they are known nothing is asked.
  const parsed = !where ? { conditions: [] } : fieldsKnown ? parseWhere(where, fields) : undefined;
  const built = parsed && 'conditions' in parsed ? buildWhere(parsed.conditions, fields) : undefined;
  const key =
    built && built.problems.size === 0
      ? withQuery(tablePath(name), { prefix, where: built.where && JSON.stringify(built.where), limit, offset, count: true })
      : null;
  // The page answered carries the offset it was asked for: the pager then describes the rows shown, not the ones still loading.
  const records = useApi(key, async (signal) => ({ ...(await get<RecordPage>(key!, { signal })), offset, limit }));
  const [panel, setPanel] = useState<'add' | 'import'>();
  const filtered = prefix !== '' || where !== '';

  /** Changes some query parameters; a filter change starts again at the first page. */
  function update(changes: Record<string, string | null>) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  }
  const reload = () => {
    sample.reload();
    records.reload();
  };

  return (
    <Page
      title={name}
      subtitle={
        <>
          <Link to="/data/tables">Tables</Link> / {name}
        </>
      }
      actions={
        admin && !panel ? (
          <>
            <button type="button" onClick={() => setPanel('import')}>
              Import file
            </button>
            <button type="button" className="primary" onClick={() => setPanel('add')}>
              Add record
            </button>
          </>
        ) : undefined
      }
    >
      <DataTabs />
      {panel === 'add' && <AddRecord table={name} onDone={() => setPanel(undefined)} />}
      {panel === 'import' && <ImportPanel table={name} onImported={reload} onClose={() => setPanel(undefined)} />}
      {!fieldsKnown ? (
        <p className="page-status">Loading fields…</p>
      ) : (
        // Keyed by the URL's filters, so back/forward puts them back into the builder.
        <RecordFilterBuilder
          key={`${prefix}\n${where}`}
          fields={fields}
          prefix={prefix}
          conditions={parsed && 'conditions' in parsed ? parsed.conditions : []}
          urlProblem={parsed && 'problem' in parsed ? parsed.problem : undefined}
          onApply={(p, w) => update({ prefix: p, where: w ? JSON.stringify(w) : null, offset: null })}
        />
      )}
      {built && built.problems.size > 0 && <p className="empty-state">Fix the filter above to see records: a condition cannot be applied as it is.</p>}
      <ErrorBox error={records.error} />
      {key && !records.data && !records.error && <p className="page-status">Loading records…</p>}
      {key && records.data && (
        <>
          <p className="muted result-count" aria-live="polite">
            {records.loading
              ? 'Loading…'
              : `${(records.data.total ?? records.data.data.length).toLocaleString()} ${records.data.total === 1 ? 'record' : 'records'}${filtered ? ' match' : ''}`}
          </p>
          {records.data.data.length === 0 ? (
            <p className="empty-state">
              {filtered ? 'No record matches these filters.' : `This table has no records.${admin ? ' Import a file or add a record.' : ''}`}
            </p>
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
      {admin && <DeleteTable table={name} recordCount={!filtered ? records.data?.total : undefined} />}
    </Page>
  );
}

/** Imports a file into this table (upserting by key); the records shown are read again once it lands. */
function ImportPanel({ table, onImported, onClose }: { table: string; onImported(): void; onClose(): void }) {
  const [choice, setChoice] = useState(emptyChoice);
  const importing = useImport();
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await importing.start(table, choice)) onImported();
  }
  return (
    <section className="panel" aria-labelledby="import-heading">
      <h2 id="import-heading">Import into {table}</h2>
      <form className="stacked-form" onSubmit={(e) => void submit(e)}>
        <ImportFileFields idPrefix="table-import" choice={choice} onChange={setChoice} />
        <ImportStatus state={importing.state} tableName={table} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={importing.busy}>
            {importing.busy ? 'Importing…' : 'Import'}
          </button>
          <button type="button" onClick={onClose}>
            {importing.state.phase === 'done' ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
    </section>
  );
}

function DeleteTable({ table, recordCount }: { table: string; recordCount: number | undefined }) {
  const navigate = useNavigate();
  return (
    <DangerZone
      heading="Delete table"
      question={
        <>
          Delete the table <code>{table}</code> and {recordCount === undefined ? 'all its records' : `its ${recordCount.toLocaleString()} records`}? Workflows
          and dashboards reading it will find nothing.
        </>
      }
      confirmLabel={`Delete table ${table}`}
      action={() => del(tablePath(table))}
      then={() => void navigate('/data/tables', { replace: true })}
    />
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
