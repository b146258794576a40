import { type FormEvent, useState } from 'react';
import { patch, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import type { DataSource, WindowDimension } from './data-types';

/** The definition as the serving engine computes it. */
export const definitionOf = (w: Pick<WindowDimension, 'function' | 'partitionBy' | 'orderBy' | 'direction'>) =>
  `${w.function}() over (${w.partitionBy.length > 0 ? `partition by ${w.partitionBy.join(', ')} ` : ''}order by ${w.orderBy} ${w.direction})`;

interface FormProps {
  source: DataSource;
  /** The window dimension to change; none for a new one. */
  window?: WindowDimension;
  onCancel(): void;
  onSaved(): void;
}

/** A new window dimension, or a change to one: its definition previewed as it is filled in, the API's problems at the fields they name. */
export function WindowDimensionForm({ source, window: editing, onCancel, onSaved }: FormProps) {
  const fields = Object.entries(source.recordSchema.fields);
  const timeField = fields.find(([, f]) => f.timeDimension)?.[0] ?? fields[0]?.[0] ?? '';
  const [name, setName] = useState(editing?.name ?? '');
  const [label, setLabel] = useState(editing?.label ?? '');
  const [partitionBy, setPartitionBy] = useState<string[]>(editing?.partitionBy ?? []);
  const [orderBy, setOrderBy] = useState(editing?.orderBy ?? timeField);
  const [direction, setDirection] = useState<'asc' | 'desc'>(editing?.direction ?? 'asc');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const base = `/dashboards/data-sources/${source.id}/window-dimensions`;
      const body = { name, label: label || name, function: 'row_number', partitionBy, orderBy, direction, semantic: 'lifetime' };
      if (editing) await patch(`${base}/${editing.id}`, body);
      else await post(base, body);
      onSaved();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  const togglePartition = (field: string, on: boolean) =>
    setPartitionBy((p) => (on ? fields.map(([n]) => n).filter((n) => n === field || p.includes(n)) : p.filter((n) => n !== field)));
  const nameProblem = problemAt(error, 'name');
  const orderProblem = problemAt(error, 'orderBy');
  const groups = partitionBy.length > 0 ? `each ${partitionBy.join(' and ')}` : 'the whole source';
  return (
    <form className="panel stacked-form window-form" aria-labelledby="add-window-heading" onSubmit={(e) => void save(e)}>
      <h3 id="add-window-heading">{editing ? `Change ${editing.name}` : 'New window dimension'}</h3>
      <div className="form-row">
        <div className="field">
          <label htmlFor="window-name">Name</label>
          <input
            id="window-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            pattern="[A-Za-z][A-Za-z0-9_]{0,62}"
            {...problemProps('window-name', nameProblem, 'window-name-help')}
          />
          <span id="window-name-help" className="help">
            A letter, then letters, digits or _
          </span>
          <ProblemNote id="window-name" problem={nameProblem} />
        </div>
        <div className="field">
          <label htmlFor="window-label">Label</label>
          <input id="window-label" value={label} onChange={(e) => setLabel(e.target.value)} placeholder={name} maxLength={200} />
        </div>
      </div>
      <fieldset className="checkboxes">
        <legend>Number records within each</legend>
        {fields.map(([n]) => (
          <label key={n}>
            <input type="checkbox" checked={partitionBy.includes(n)} onChange={(e) => togglePartition(n, e.target.checked)} /> {n}
          </label>
        ))}
      </fieldset>
      <div className="form-row">
        <div className="field">
          <label htmlFor="window-order">In the order of</label>
          <select id="window-order" value={orderBy} onChange={(e) => setOrderBy(e.target.value)} {...problemProps('window-order', orderProblem)}>
            {fields.map(([n]) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <ProblemNote id="window-order" problem={orderProblem} />
        </div>
        <div className="field">
          <label htmlFor="window-direction">Direction</label>
          <select id="window-direction" value={direction} onChange={(e) => setDirection(e.target.value as 'asc' | 'desc')}>
            <option value="asc">Ascending (1 is the first)</option>
            <option value="desc">Descending (1 is the last)</option>
          </select>
        </div>
      </div>
      <div className="preview" aria-live="polite">
        <h4>Preview</h4>
        <p>
          <code>{definitionOf({ function: 'row_number', partitionBy, orderBy, direction })}</code>
        </p>
        <p className="muted">
          Numbers the records of {groups} 1, 2, 3… by {orderBy || 'a field'}, {direction === 'asc' ? 'earliest or smallest' : 'latest or largest'} first, over
          every record the source holds.
        </p>
      </div>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Save window dimension
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
