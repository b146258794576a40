import { type FormEvent, useState } from 'react';
import { ApiError, patch } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { ScrollBox } from '../../ui/scroll-box';
import type { DataSource } from './data-types';
import { draftsOf, type FieldDraft, fieldsOf, timeFieldOf, TYPE_LABELS } from './source-fields';
import { SourceFieldsForm } from './source-fields-form';

interface Props {
  source: DataSource;
  canEdit: boolean;
  onChanged(): void;
}

/** The source's fields with their labels, types and roles; dashboards:admin edits them (and the source's name). */
export function SourceFieldsSection({ source, canEdit, onChanged }: Props) {
  const [editing, setEditing] = useState(false);
  return (
    <section aria-labelledby="fields-heading">
      <div className="section-header">
        <h2 id="fields-heading">Fields</h2>
        {canEdit && !editing && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit fields
          </button>
        )}
      </div>
      {editing ? (
        <FieldsEdit
          source={source}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      ) : (
        <ScrollBox label="Fields">
          <table className="list fields">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(source.recordSchema.fields).map(([name, f]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>{f.label}</td>
                  <td>{TYPE_LABELS[f.type] ?? f.type}</td>
                  <td>
                    {f.timeDimension && <span className="badge">Time dimension</span>} {f.measure && <span className="badge">Measure</span>}
                    {!f.timeDimension && !f.measure && <span className="muted">Dimension</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

/**
 * Name, labels and roles, saved as one PATCH of the record schema (calculated fields are kept). A new time
 * dimension re-keys the source's analytics table, which the API refuses without confirmTimeFieldRekey: the
 * person is asked first.
 */
function FieldsEdit({ source, onCancel, onSaved }: { source: DataSource; onCancel(): void; onSaved(): void }) {
  const [name, setName] = useState(source.name);
  const [drafts, setDrafts] = useState<FieldDraft[]>(() => draftsOf(source.recordSchema.fields));
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const before = timeFieldOf(draftsOf(source.recordSchema.fields));
  const after = timeFieldOf(drafts);

  async function save(confirmTimeFieldRekey: boolean) {
    setError(undefined);
    setBusy(true);
    try {
      // The schema's own name follows the source's while they are the same.
      const schemaName = source.recordSchema.name === source.name ? name : source.recordSchema.name;
      await patch(`/dashboards/data-sources/${source.id}`, {
        ...(name !== source.name ? { name } : {}),
        recordSchema: { name: schemaName, fields: fieldsOf(drafts) },
        ...(confirmTimeFieldRekey ? { confirmTimeFieldRekey: true } : {}),
      });
      onSaved();
    } catch (e) {
      setBusy(false);
      setConfirming(false);
      // Another edit changed the time dimension meanwhile: ask, as for our own change.
      if (e instanceof ApiError && e.code === 'time_field_rekey_unconfirmed') setConfirming(true);
      else setError(e);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (before !== after) setConfirming(true);
    else void save(false);
  }

  const nameProblem = problemAt(error, 'name');
  return (
    <form className="stacked-form panel source-fields-edit" aria-label="Edit fields" onSubmit={submit}>
      <div className="field">
        <label htmlFor="source-name">Name</label>
        <input id="source-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} {...problemProps('source-name', nameProblem)} />
        <ProblemNote id="source-name" problem={nameProblem} />
      </div>
      <SourceFieldsForm drafts={drafts} onChange={setDrafts} error={error} disabled={busy || confirming} />
      <ErrorBox error={error} />
      {confirming ? (
        <div role="alert" className="notice">
          <ConfirmPrompt
            question={
              <>
                The time dimension changes from <code>{before}</code> to <code>{after}</code>: the source&apos;s analytics table is rebuilt from every record in
                the new time order, which takes a while on a big table, and charts by time read the new field afterwards.
              </>
            }
            confirmLabel="Change the time dimension"
            busy={busy}
            onConfirm={() => void save(true)}
            onCancel={() => setConfirming(false)}
          />
        </div>
      ) : (
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy || !after}>
            Save fields
          </button>
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        </div>
      )}
    </form>
  );
}
