import { type FormEvent, useId, useState } from 'react';
import { get, patch, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useApi } from '../../ui/use-api';
import type { Dashboard, DistinctValues, FilterConfigItem, MetaList, SourceList } from './dashboard-api';

interface Props {
  dashboard: Dashboard;
  /** The dashboard as PATCH answered it. */
  onSaved(): void;
}

/** A new filter's id from its field, unique among the dashboard's (ids key the URL's `filter.<id>` and the defaults). */
function newFilterId(dimension: string, taken: readonly FilterConfigItem[]): string {
  const base = (dimension.split('.').pop() ?? 'filter').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56) || 'filter';
  const ids = new Set(taken.map((f) => f.id));
  let id = base;
  for (let n = 2; ids.has(id); n++) id = `${base}_${n}`;
  return id;
}

/**
 * The dashboard's filter controls, edited in place (edit mode): each is `equals` on one field of one data source
 * and narrows every widget over that source. Saved whole with PATCH /dashboards/{id} {filterConfig, filterDefaults}.
 */
export function FilterEditor({ dashboard, onSaved }: Props) {
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const sources = useApi('sources', (signal) => get<SourceList>('/dashboards/data-sources', { signal, query: { limit: 1000 } }));
  const sourceName = (id: string) => sources.data?.find((s) => s.id === id)?.name ?? id;
  const headingId = useId();

  const save = async (filterConfig: FilterConfigItem[], filterDefaults: Record<string, string[]>) => {
    await patch<Dashboard>(`/dashboards/${dashboard.id}`, { filterConfig, filterDefaults });
    setEditing(null);
    onSaved();
  };
  const remove = async (index: number) => {
    const removed = dashboard.filterConfig[index];
    const { [removed.id]: _dropped, ...defaults } = dashboard.filterDefaults;
    setBusy(true);
    setError(undefined);
    try {
      await save(
        dashboard.filterConfig.filter((_, i) => i !== index),
        defaults,
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel-form filter-editor" aria-labelledby={headingId}>
      <h2 id={headingId}>Filters</h2>
      <p className="muted">A filter narrows every widget over its data source; widgets over other sources are left alone.</p>
      <ErrorBox error={error} />
      {dashboard.filterConfig.length === 0 ? (
        <p>No filters yet.</p>
      ) : (
        <ul className="filter-list">
          {dashboard.filterConfig.map((f, i) => (
            <li key={f.id}>
              <b>{f.label || f.dimension}</b>{' '}
              <span className="muted">
                {sourceName(f.dataSourceId)} · {f.dimension}
                {(dashboard.filterDefaults[f.id] ?? []).length > 0 && <> · default {dashboard.filterDefaults[f.id].join(', ')}</>}
              </span>{' '}
              <button type="button" className="small" onClick={() => setEditing(i)} aria-label={`Edit filter ${f.label || f.dimension}`}>
                Edit
              </button>{' '}
              <button
                type="button"
                className="small danger"
                disabled={busy}
                onClick={() => void remove(i)}
                aria-label={`Remove filter ${f.label || f.dimension}`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {editing === null ? (
        <button type="button" onClick={() => setEditing('new')}>
          Add filter
        </button>
      ) : (
        <FilterForm
          key={String(editing)}
          sources={sources.data ?? []}
          filter={editing === 'new' ? undefined : dashboard.filterConfig[editing]}
          defaults={editing === 'new' ? [] : (dashboard.filterDefaults[dashboard.filterConfig[editing].id] ?? [])}
          onCancel={() => setEditing(null)}
          onSave={async (filter, values) => {
            const others = dashboard.filterConfig.filter((_, i) => i !== editing);
            const item = { ...filter, id: editing === 'new' ? newFilterId(filter.dimension, others) : dashboard.filterConfig[editing].id };
            const config = editing === 'new' ? [...others, item] : dashboard.filterConfig.map((f, i) => (i === editing ? item : f));
            const { [item.id]: _old, ...defaults } = dashboard.filterDefaults;
            await save(config, values.length > 0 ? { ...defaults, [item.id]: values } : defaults);
          }}
        />
      )}
    </section>
  );
}

interface FormProps {
  sources: SourceList;
  filter: FilterConfigItem | undefined;
  defaults: string[];
  onSave(filter: Omit<FilterConfigItem, 'id'>, defaults: string[]): Promise<void>;
  onCancel(): void;
}

/** One filter: its source, its field (from GET /dashboards/analytics/meta), its label and its default values. */
function FilterForm({ sources, filter, defaults, onSave, onCancel }: FormProps) {
  const meta = useApi('meta', (signal) => get<MetaList>('/dashboards/analytics/meta', { signal }));
  const [sourceId, setSourceId] = useState(filter?.dataSourceId ?? '');
  const [dimension, setDimension] = useState(filter?.dimension ?? '');
  const [label, setLabel] = useState(filter?.label ?? '');
  const [values, setValues] = useState<string[]>(defaults);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const ids = useId();

  const source = sources.find((s) => s.id === sourceId);
  const entry = source ? meta.data?.find((m) => m.name === source.servingRelation) : undefined;
  // Fields of the source by their plain name (what filterConfig keeps); time fields are the widgets' own range, not an equals filter.
  const fields = (entry?.dimensions ?? []).filter((d) => d.type !== 'time').map((d) => ({ name: d.name.slice(d.name.indexOf('.') + 1), title: d.title }));
  const suggestions = useApi(sourceId && dimension ? `values|${sourceId}|${dimension}` : null, (signal) =>
    post<DistinctValues>('/dashboards/analytics/distinct-values', { dataSourceId: sourceId, dimension, limit: 500 }, { signal }),
  );

  const addValue = () => {
    const v = draft.trim();
    if (v && !values.includes(v)) setValues([...values, v]);
    setDraft('');
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const pending = draft.trim() && !values.includes(draft.trim()) ? [...values, draft.trim()] : values;
      await onSave({ dataSourceId: sourceId, dimension, label: label.trim() }, pending);
    } catch (err) {
      setError(err);
      setSaving(false);
    }
  };

  return (
    <form className="filter-form" onSubmit={(e) => void submit(e)} aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>{filter ? `Edit filter ${filter.label || filter.dimension}` : 'New filter'}</h3>
      <ErrorBox error={error ?? meta.error} />
      <div className="form-row">
        <div className="field">
          <label htmlFor={`${ids}-source`}>Filter data source</label>
          <select
            id={`${ids}-source`}
            required
            value={sourceId}
            onChange={(e) => {
              setSourceId(e.target.value);
              setDimension('');
              setValues([]);
            }}
          >
            <option value="">Choose…</option>
            {sources.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-field`}>Filter field</label>
          <select
            id={`${ids}-field`}
            required
            value={dimension}
            disabled={!entry}
            onChange={(e) => {
              const field = fields.find((f) => f.name === e.target.value);
              if (!label || label === fields.find((f) => f.name === dimension)?.title) setLabel(field?.title ?? '');
              setDimension(e.target.value);
              setValues([]);
            }}
          >
            <option value="">Choose…</option>
            {/* A field the source no longer lists stays selectable, so an old filter still shows what it is. */}
            {dimension && !fields.some((f) => f.name === dimension) && <option value={dimension}>{dimension}</option>}
            {fields.map((f) => (
              <option key={f.name} value={f.name}>
                {f.title}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-label`}>Filter label</label>
          <input id={`${ids}-label`} maxLength={200} value={label} onChange={(e) => setLabel(e.target.value)} />
        </div>
      </div>
      <fieldset className="filter-defaults">
        <legend>Default values</legend>
        {values.length === 0 ? (
          <p className="muted">None: the filter starts at “All”.</p>
        ) : (
          <ul className="value-chips">
            {values.map((v) => (
              <li key={v}>
                {v}{' '}
                <button type="button" className="small" onClick={() => setValues(values.filter((x) => x !== v))} aria-label={`Remove default value ${v}`}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="form-row">
          <div className="field">
            <label htmlFor={`${ids}-value`}>Add a default value</label>
            <input
              id={`${ids}-value`}
              list={`${ids}-values`}
              maxLength={500}
              value={draft}
              disabled={!dimension}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addValue();
                }
              }}
            />
            <datalist id={`${ids}-values`}>
              {(suggestions.data?.values ?? []).map((v) => (
                <option key={v} value={v} />
              ))}
            </datalist>
          </div>
          <button type="button" onClick={addValue} disabled={!draft.trim()}>
            Add value
          </button>
        </div>
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save filter'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
