import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { useApi } from '../../ui/use-api';
import type { DataSource, InferredFields, ReceivedShare, TableList } from './data-types';
import { draftsOf, type FieldDraft, fieldsOf, labelOf, timeFieldOf } from './source-fields';
import { SourceFieldsForm } from './source-fields-form';

const TABLES = '/data-stores/tables?limit=1000';
const RECEIVED = '/dashboards/shares/received';

/** The table a source reads: one of the organization's own, or one another organization shares with it. */
interface Choice {
  value: string;
  /** As the person knows it: a shared table by the alias it was shared under. */
  label: string;
  /** As the API takes it: a shared table by the owner's name, which no table or alias here can shadow. */
  tableName: string;
  sharedFromOrganizationId?: string;
}

const ownChoice = (tableName: string): Choice => ({ value: `own:${tableName}`, label: tableName, tableName });
const sharedChoice = (s: ReceivedShare): Choice => ({
  value: `share:${s.id}`,
  label: s.alias,
  tableName: s.tableName,
  sharedFromOrganizationId: s.ownerOrganizationId,
});

/** "From a data store table": pick the table, and its fields come inferred from its records, ready to be given roles. */
export function TableSourceForm({ initialTable }: { initialTable: string | null }) {
  const { can } = useSession();
  const tables = useApi(can('workflows:view') ? TABLES : null, (signal) => get<TableList>(TABLES, { signal }));
  const received = useApi(RECEIVED, (signal) => get<ReceivedShare[]>(RECEIVED, { signal }));
  const [picked, setPicked] = useState(initialTable ? ownChoice(initialTable).value : '');

  const own = (tables.data?.data ?? []).map((t) => ownChoice(t.tableName));
  const shared = (received.data ?? []).map(sharedChoice);
  const choice =
    [...own, ...shared].find((c) => c.value === picked) ?? (initialTable && picked === ownChoice(initialTable).value ? ownChoice(initialTable) : undefined);
  const listed = tables.data !== undefined;

  return (
    <section aria-labelledby="table-source-heading">
      <h2 id="table-source-heading">From a data store table</h2>
      <ErrorBox error={tables.error ?? received.error} />
      {listed && own.length === 0 && shared.length === 0 ? (
        <div className="empty-state">
          <p>There is no table to read yet. A table appears when a workflow step, an import or the API first writes a record into it.</p>
          <p>
            <Link to="/data/tables">See the tables</Link>
          </p>
        </div>
      ) : (
        <div className="stacked-form table-picker">
          <div className="field">
            <label htmlFor="source-table">Table</label>
            <select id="source-table" value={picked} onChange={(e) => setPicked(e.target.value)} aria-describedby="source-table-help">
              <option value="">{listed ? 'Choose a table…' : 'Loading tables…'}</option>
              {own.length > 0 && (
                <optgroup label="This organization's tables">
                  {own.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </optgroup>
              )}
              {shared.length > 0 && (
                <optgroup label="Shared with this organization">
                  {shared.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label} (shared)
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
            <span id="source-table-help" className="help">
              Its fields are read from its newest records (up to 1,000)
            </span>
          </div>
        </div>
      )}
      {choice && <InferredSource key={choice.value} choice={choice} />}
    </section>
  );
}

/** The fields inferred from the chosen table, then the form that saves the source. */
function InferredSource({ choice }: { choice: Choice }) {
  const key = `infer:${choice.value}`;
  const inferred = useApi(key, (signal) =>
    post<InferredFields>(
      '/dashboards/data-sources/infer-fields',
      { dataStoreTableName: choice.tableName, ...(choice.sharedFromOrganizationId ? { sharedFromOrganizationId: choice.sharedFromOrganizationId } : {}) },
      { signal },
    ),
  );
  if (inferred.error) return <ErrorBox error={inferred.error} />;
  if (!inferred.data) return <p className="page-status">Reading the records of {choice.label}…</p>;
  if (inferred.data.sampledRecords === 0)
    return (
      <p className="notice">
        Table {choice.label} holds no records yet, so there are no fields to read. Write records into it first (a workflow step, an import or the API), then
        come back.
      </p>
    );
  return <NewSourceForm choice={choice} inferred={inferred.data} />;
}

function NewSourceForm({ choice, inferred }: { choice: Choice; inferred: InferredFields }) {
  const navigate = useNavigate();
  const [name, setName] = useState(labelOf(choice.label));
  const [drafts, setDrafts] = useState<FieldDraft[]>(() => draftsOf(inferred.fields, true));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const source = await post<DataSource>('/dashboards/data-sources', {
        name,
        type: 'custom',
        dataStoreTableName: choice.tableName,
        recordSchema: { name, fields: fieldsOf(drafts) },
        ...(choice.sharedFromOrganizationId ? { sharedFromOrganizationId: choice.sharedFromOrganizationId } : {}),
      });
      navigate(`/data/sources/${source.id}`);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  const nameProblem = problemAt(error, 'name') ?? problemAt(error, 'recordSchema.name');
  const tableProblem = problemAt(error, 'dataStoreTableName') ?? problemAt(error, 'sharedFromOrganizationId');
  return (
    <form className="stacked-form new-source" aria-label={`New data source over ${choice.label}`} onSubmit={(e) => void save(e)}>
      <p className="muted">
        {inferred.sampledRecords.toLocaleString()} records read.
        {inferred.skippedFields.length > 0 && (
          <>
            {' '}
            Left out, as their names cannot be field names (a letter, then letters, digits or _; <code>count</code> is taken):{' '}
            {inferred.skippedFields.map((f, i) => (
              <span key={f}>
                {i > 0 && ', '}
                <code>{f}</code>
              </span>
            ))}
            .
          </>
        )}
      </p>
      {tableProblem && <ProblemNote id="source-table" problem={tableProblem} />}
      <div className="field">
        <label htmlFor="source-name">Name</label>
        <input id="source-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} {...problemProps('source-name', nameProblem)} />
        <ProblemNote id="source-name" problem={nameProblem} />
      </div>
      <SourceFieldsForm drafts={drafts} onChange={setDrafts} error={error} disabled={busy} />
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || !timeFieldOf(drafts)}>
          Create data source
        </button>
        <Link className="button" to="/data/sources">
          Cancel
        </Link>
      </div>
    </form>
  );
}
