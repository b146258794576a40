import { type FormEvent, useState } from 'react';
import { del, post } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { ScrollBox } from '../../ui/scroll-box';
import { useApi } from '../../ui/use-api';
import type { AnalyticsAnswer, DataSource, WindowDimension } from './data-types';

const PREVIEW_ROWS = 10;

interface Props {
  source: DataSource;
  canEdit: boolean;
  onChanged(): void;
}

/**
 * Why the source cannot have window dimensions, or null: the API's own rule (src/data-sources/schema-rules.ts,
 * windowUnsupportedReason), said before the person fills a form it would refuse.
 */
function unsupportedReason(source: DataSource): string | null {
  if (source.servingEngine !== 'postgres') return `its serving engine (${source.servingEngine}) cannot compute window functions`;
  if (source.type !== 'custom') return 'a data feed’s source holds aggregates, not one row per record';
  if (source.sharedFromOrganizationId) return 'it reads a table shared by another organization';
  return null;
}

/** The definition as the serving engine computes it. */
const definitionOf = (w: Pick<WindowDimension, 'function' | 'partitionBy' | 'orderBy' | 'direction'>) =>
  `${w.function}() over (${w.partitionBy.length > 0 ? `partition by ${w.partitionBy.join(', ')} ` : ''}order by ${w.orderBy} ${w.direction})`;

/** The source's window dimensions (row_number over every record it holds, as the API allows today): listed, added, deleted. */
export function WindowDimensions({ source, canEdit, onChanged }: Props) {
  const [adding, setAdding] = useState(false);
  const windows = source.windowDimensions;
  const reason = unsupportedReason(source);
  if (windows.length === 0 && reason) return null;
  return (
    <section aria-labelledby="window-heading">
      <div className="section-header">
        <h2 id="window-heading">Window dimensions</h2>
        {canEdit && !reason && !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add window dimension
          </button>
        )}
      </div>
      {windows.length === 0 ? (
        <p className="empty-state">
          No window dimensions. A window dimension numbers each record within a group in an order, e.g. each customer&apos;s 1st, 2nd, 3rd order, so charts can
          compare first orders with repeat ones.
        </p>
      ) : (
        <ScrollBox label="Window dimensions">
          <table className="list windows">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Definition</th>
                {canEdit && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {windows.map((w) => (
                <WindowRow key={w.id} sourceId={source.id} window={w} canEdit={canEdit} onChanged={onChanged} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {reason && canEdit && <p className="muted">No window dimension can be added: {reason}.</p>}
      {adding && (
        <AddWindowDimension
          source={source}
          onCancel={() => setAdding(false)}
          onSaved={() => {
            setAdding(false);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

interface RowProps {
  sourceId: string;
  window: WindowDimension;
  canEdit: boolean;
  onChanged(): void;
}

function WindowRow({ sourceId, window: w, canEdit, onChanged }: RowProps) {
  const [confirming, setConfirming] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const [error, setError] = useState<unknown>();
  async function remove() {
    try {
      await del(`/dashboards/data-sources/${sourceId}/window-dimensions/${w.id}`);
      onChanged();
    } catch (e) {
      setError(e);
    }
  }
  return (
    <>
      <tr>
        <th scope="row">
          <code>{w.name}</code>
        </th>
        <td>{w.label}</td>
        <td>
          <code>{definitionOf(w)}</code>{' '}
          <button
            type="button"
            className="link-button"
            aria-expanded={previewing}
            aria-label={`${previewing ? 'Hide' : 'Preview'} values of ${w.name}`}
            onClick={() => setPreviewing((p) => !p)}
          >
            {previewing ? 'Hide values' : 'Preview values'}
          </button>
        </td>
        {canEdit && (
          <td className="row-actions">
            {confirming ? (
              <ConfirmPrompt
                question="Widgets using it will match nothing."
                confirmLabel={`Delete ${w.name}`}
                onConfirm={() => void remove()}
                onCancel={() => setConfirming(false)}
              />
            ) : (
              <button type="button" className="link-button" aria-label={`Delete ${w.name}`} onClick={() => setConfirming(true)}>
                Delete
              </button>
            )}
            <ErrorBox error={error} />
          </td>
        )}
      </tr>
      {previewing && (
        <tr>
          <td colSpan={canEdit ? 4 : 3}>
            <WindowPreview sourceId={sourceId} window={w} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The first rows of the source as the window dimension numbers them, read through the analytics query: the
 * API computes window dimensions only in the serving engine, so a saved one is previewed, not a draft.
 */
function WindowPreview({ sourceId, window: w }: { sourceId: string; window: WindowDimension }) {
  const cube = `ds_${sourceId.replace(/-/g, '_')}`;
  const columns = [...w.partitionBy, ...(w.partitionBy.includes(w.orderBy) ? [] : [w.orderBy]), w.name];
  const query = {
    dimensions: columns.map((c) => `${cube}.${c}`),
    order: [...w.partitionBy.map((p) => [`${cube}.${p}`, 'asc']), [`${cube}.${w.name}`, 'asc']],
    limit: PREVIEW_ROWS,
  };
  const key = `window-preview:${sourceId}:${JSON.stringify(query)}`;
  const rows = useApi(key, (signal) => post<AnalyticsAnswer>('/dashboards/analytics/query', { query }, { signal }));
  if (rows.error) return <ErrorBox error={rows.error} />;
  if (!rows.data) return <p className="page-status">Reading the first rows…</p>;
  if (rows.data.data.length === 0) return <p className="muted">The source holds no records to number yet.</p>;
  return (
    <table className="list window-preview" aria-label={`First ${PREVIEW_ROWS} rows numbered by ${w.name}`}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col" className={c === w.name ? 'num' : undefined}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.data.data.map((row, i) => (
          <tr key={i}>
            {columns.map((c) => (
              <td key={c} className={c === w.name ? 'num' : undefined}>
                {String(row[`${cube}.${c}`] ?? '')}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AddWindowDimension({ source, onCancel, onSaved }: { source: DataSource; onCancel(): void; onSaved(): void }) {
  const fields = Object.entries(source.recordSchema.fields);
  const timeField = fields.find(([, f]) => f.timeDimension)?.[0] ?? fields[0]?.[0] ?? '';
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [partitionBy, setPartitionBy] = useState<string[]>([]);
  const [orderBy, setOrderBy] = useState(timeField);
  const [direction, setDirection] = useState<'asc' | 'desc'>('asc');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await post(`/dashboards/data-sources/${source.id}/window-dimensions`, {
        name,
        label: label || name,
        function: 'row_number',
        partitionBy,
        orderBy,
        direction,
        semantic: 'lifetime',
      });
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
      <h3 id="add-window-heading">New window dimension</h3>
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
