import { useState } from 'react';
import { post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { sourceAlias } from '../dashboards/dashboard-api';
import { MemberActions } from './member-actions';
import { ScrollBox } from '../../ui/scroll-box';
import { useApi } from '../../ui/use-api';
import type { AnalyticsAnswer, DataSource, WindowDimension } from './data-types';
import { definitionOf, WindowDimensionForm } from './window-dimension-form';

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

/** The source's window dimensions (row_number over every record it holds, as the API allows today): listed with their values, added, changed, deleted. */
export function WindowDimensions({ source, canEdit, onChanged }: Props) {
  // The form open below the list: a new window dimension ({}), or the one being changed.
  const [form, setForm] = useState<{ window?: WindowDimension } | null>(null);
  const windows = source.windowDimensions;
  const reason = unsupportedReason(source);
  if (windows.length === 0 && reason) return null;
  return (
    <section aria-labelledby="window-heading">
      <div className="section-header">
        <h2 id="window-heading">Window dimensions</h2>
        {canEdit && !reason && !form && (
          <button type="button" onClick={() => setForm({})}>
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
                <WindowRow key={w.id} sourceId={source.id} window={w} canEdit={canEdit} onEdit={() => setForm({ window: w })} onChanged={onChanged} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {reason && canEdit && <p className="muted">No window dimension can be added: {reason}.</p>}
      {form && (
        <WindowDimensionForm
          key={form.window?.id ?? 'new'}
          source={source}
          window={form.window}
          onCancel={() => setForm(null)}
          onSaved={() => {
            setForm(null);
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
  onEdit(): void;
  onChanged(): void;
}

function WindowRow({ sourceId, window: w, canEdit, onEdit, onChanged }: RowProps) {
  const [previewing, setPreviewing] = useState(false);
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
          <MemberActions name={w.name} path={`/dashboards/data-sources/${sourceId}/window-dimensions/${w.id}`} onEdit={onEdit} onDeleted={onChanged} />
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
  const cube = sourceAlias(sourceId);
  const columns = [...w.partitionBy, ...(w.partitionBy.includes(w.orderBy) ? [] : [w.orderBy]), w.name];
  const query = {
    dimensions: columns.map((c) => `${cube}.${c}`),
    order: [...w.partitionBy.map((p) => [`${cube}.${p}`, 'asc']), [`${cube}.${w.name}`, 'asc']],
    limit: PREVIEW_ROWS,
  };
  // The definition is in the key: a changed window dimension is read again.
  const key = `window-preview:${sourceId}:${definitionOf(w)}:${JSON.stringify(query)}`;
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
