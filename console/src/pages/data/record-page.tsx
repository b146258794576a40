import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { del, get, patch, put } from '../../api/client';
import { useSession } from '../../session/session';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { DataTabs } from './data-tabs';
import { type DataRecord, recordPath } from './data-types';
import { JsonValueForm } from './json-value-form';

type Mode = 'replace' | 'merge';

/** One record: its value in full, its times, and (workflows:admin) editing and deleting it. */
export function RecordPage() {
  const { name = '', key = '' } = useParams();
  const { can } = useSession();
  const path = recordPath(name, key);
  const record = useApi(path, (signal) => get<DataRecord>(path, { signal }));
  const [editing, setEditing] = useState(false);
  // Back to the table as it was filtered when the record was opened from it.
  const tableSearch = (useLocation().state as { tableSearch?: string } | null)?.tableSearch;
  const tableLink = `/data/tables/${encodeURIComponent(name)}${tableSearch ? `?${tableSearch}` : ''}`;

  return (
    <Page
      title={key}
      subtitle={
        <>
          <Link to="/data/tables">Tables</Link> / <Link to={tableLink}>{name}</Link> / record
        </>
      }
      actions={
        can('workflows:admin') && record.data && !editing ? (
          <button type="button" onClick={() => setEditing(true)}>
            Edit value
          </button>
        ) : undefined
      }
    >
      <DataTabs />
      <ErrorBox error={record.error} />
      {!record.data && !record.error && <p className="page-status">Loading record…</p>}
      {record.data && (
        <>
          <dl className="facts">
            <div>
              <dt>Updated</dt>
              <dd>{formatTime(record.data.updatedAt)}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatTime(record.data.createdAt)}</dd>
            </div>
            <div>
              <dt>Record time</dt>
              <dd>{formatTime(record.data.recordTimestamp)}</dd>
            </div>
            <div>
              <dt>Expires</dt>
              <dd>{record.data.expiresAt ? formatTime(record.data.expiresAt) : 'Never'}</dd>
            </div>
          </dl>
          {editing ? (
            <EditValue path={path} record={record.data} onDone={() => setEditing(false)} onSaved={record.reload} />
          ) : (
            <>
              <h2>Value</h2>
              <JsonView value={record.data.value} label={`Value of ${key}`} />
            </>
          )}
          {can('workflows:admin') && <DeleteRecord path={path} recordKey={key} tableLink={tableLink} />}
        </>
      )}
    </Page>
  );
}

function EditValue({ path, record, onDone, onSaved }: { path: string; record: DataRecord; onDone(): void; onSaved(): void }) {
  const [mode, setMode] = useState<Mode>('replace');
  return (
    <section aria-labelledby="edit-heading">
      <h2 id="edit-heading">Edit value</h2>
      <JsonValueForm
        id="record-value"
        label="Value (JSON object)"
        initial={record.value}
        submitLabel="Save value"
        onCancel={onDone}
        onSubmit={async (value) => {
          // PUT replaces the value whole; PATCH merges its top-level fields into the stored value.
          if (mode === 'replace') await put(path, { value, ...(record.expiresAt ? { expiresAt: record.expiresAt } : {}) });
          else await patch(path, { value });
          onSaved();
          onDone();
        }}
      >
        <fieldset className="choice">
          <legend>How to save</legend>
          <label>
            <input type="radio" name="mode" value="replace" checked={mode === 'replace'} onChange={() => setMode('replace')} /> Replace the value
          </label>
          <label>
            <input type="radio" name="mode" value="merge" checked={mode === 'merge'} onChange={() => setMode('merge')} /> Merge top-level fields into it
          </label>
        </fieldset>
      </JsonValueForm>
    </section>
  );
}

function DeleteRecord({ path, recordKey, tableLink }: { path: string; recordKey: string; tableLink: string }) {
  const navigate = useNavigate();
  return (
    <DangerZone
      heading="Delete record"
      question={
        <>
          Delete the record <code>{recordKey}</code>? Workflows reading it will no longer find it.
        </>
      }
      confirmLabel={`Delete ${recordKey}`}
      action={() => del(path)}
      then={() => void navigate(tableLink, { replace: true })}
    />
  );
}
