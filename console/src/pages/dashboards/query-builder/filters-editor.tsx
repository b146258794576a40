import { useState } from 'react';
import { post } from '../../../api/client';
import { useApi } from '../../../ui/use-api';
import type { DistinctValues, MetaEntry } from '../dashboard-api';
import { memberTitle } from './field-pickers';
import { useDebounced } from './use-debounced';
import { arityOf, type BuilderState, type FilterRow, filterProblem, memberKind, type Operator, OPERATORS, operatorsFor, reshapeFilter } from './query-state';

interface Props {
  state: BuilderState;
  meta: MetaEntry;
  onChange(next: BuilderState): void;
}

/** The query's filters, each a field, an operator the field takes and values of the field's type. */
export function FiltersEditor({ state, meta, onChange }: Props) {
  const fields = [...meta.dimensions, ...meta.measures];
  const setFilter = (key: number, next: FilterRow) => onChange({ ...state, filters: state.filters.map((f) => (f.key === key ? next : f)) });
  const add = () => {
    const key = Math.max(0, ...state.filters.map((f) => f.key)) + 1;
    const first = fields[0]?.name ?? '';
    onChange({ ...state, filters: [...state.filters, reshapeFilter({ key, member: first, operator: 'equals', values: [] }, memberKind(meta, first), {})] });
  };
  return (
    <fieldset className="qb-group">
      <legend>Filters</legend>
      {state.filters.length === 0 && <p className="muted">Every record counts</p>}
      {state.filters.map((f, i) => (
        <FilterEditor
          key={f.key}
          index={i}
          filter={f}
          meta={meta}
          dataSourceId={state.dataSourceId}
          onChange={(next) => setFilter(f.key, next)}
          onRemove={() => onChange({ ...state, filters: state.filters.filter((x) => x.key !== f.key) })}
        />
      ))}
      <div>
        <button type="button" onClick={add} disabled={fields.length === 0}>
          Add filter
        </button>
      </div>
    </fieldset>
  );
}

interface FilterProps {
  index: number;
  filter: FilterRow;
  meta: MetaEntry;
  dataSourceId: string;
  onChange(next: FilterRow): void;
  onRemove(): void;
}

function FilterEditor({ index, filter, meta, dataSourceId, onChange, onRemove }: FilterProps) {
  const id = `qb-filter-${filter.key}`;
  const kind = memberKind(meta, filter.member);
  const problem = filterProblem(filter);
  const known = [...meta.dimensions, ...meta.measures].some((m) => m.name === filter.member);
  return (
    <div className="qb-filter" role="group" aria-label={`Filter ${index + 1}`}>
      <div className="field">
        <label htmlFor={`${id}-member`}>Field</label>
        <select
          id={`${id}-member`}
          value={filter.member}
          onChange={(e) => onChange(reshapeFilter(filter, memberKind(meta, e.target.value), { member: e.target.value }))}
        >
          <optgroup label="Dimensions">
            {meta.dimensions.map((d) => (
              <option key={d.name} value={d.name}>
                {d.title}
              </option>
            ))}
          </optgroup>
          <optgroup label="Measures">
            {meta.measures.map((m) => (
              <option key={m.name} value={m.name}>
                {m.title}
              </option>
            ))}
          </optgroup>
          {!known && <option value={filter.member}>{memberTitle(meta, filter.member)} (not in the source)</option>}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-operator`}>Operator</label>
        <select id={`${id}-operator`} value={filter.operator} onChange={(e) => onChange(reshapeFilter(filter, kind, { operator: e.target.value as Operator }))}>
          {operatorsFor(kind).map((o) => (
            <option key={o} value={o}>
              {OPERATORS[o].label}
            </option>
          ))}
        </select>
      </div>
      <ValuesEditor id={id} filter={filter} kind={kind} dataSourceId={dataSourceId} onChange={onChange} problem={problem} />
      <button type="button" className="small qb-filter-remove" onClick={onRemove} aria-label={`Remove filter ${index + 1}`}>
        Remove
      </button>
      {problem && (
        <p id={`${id}-problem`} className="field-problem">
          {problem}
        </p>
      )}
    </div>
  );
}

interface ValuesProps {
  id: string;
  filter: FilterRow;
  kind: ReturnType<typeof memberKind>;
  dataSourceId: string;
  problem: string | undefined;
  onChange(next: FilterRow): void;
}

/** The values an operator takes, typed by the field: numbers, dates, or text with the field's own values suggested. */
function ValuesEditor({ id, filter, kind, dataSourceId, problem, onChange }: ValuesProps) {
  const arity = arityOf(filter.operator);
  const inputType = kind === 'time' ? 'date' : kind === 'number' || kind === 'measure' ? 'number' : 'text';
  const described = problem ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-problem` } : {};
  const setValues = (values: string[]) => onChange({ ...filter, values });
  if (arity === 'none') return null;
  if (arity === 'pair') {
    return (
      <>
        {['From', 'To'].map((label, i) => (
          <div className="field" key={label}>
            <label htmlFor={`${id}-value-${i}`}>{label}</label>
            <input
              id={`${id}-value-${i}`}
              type="date"
              value={filter.values[i] ?? ''}
              {...described}
              onChange={(e) => setValues(i === 0 ? [e.target.value, filter.values[1] ?? ''] : [filter.values[0] ?? '', e.target.value])}
            />
          </div>
        ))}
      </>
    );
  }
  if (arity === 'one') {
    return (
      <div className="field">
        <label htmlFor={`${id}-value`}>Value</label>
        <TextWithSuggestions
          id={`${id}-value`}
          type={inputType}
          value={filter.values[0] ?? ''}
          suggest={kind === 'string' ? { dataSourceId, dimension: filter.member } : undefined}
          extra={described}
          onChange={(v) => setValues([v])}
        />
      </div>
    );
  }
  return <ManyValues id={id} filter={filter} type={inputType} kind={kind} dataSourceId={dataSourceId} described={described} setValues={setValues} />;
}

interface ManyProps {
  id: string;
  filter: FilterRow;
  type: string;
  kind: ValuesProps['kind'];
  dataSourceId: string;
  described: Record<string, unknown>;
  setValues(values: string[]): void;
}

/** Any number of values: typed (or picked from the suggestions) and added with Enter or Add, each removable. */
function ManyValues({ id, filter, type, kind, dataSourceId, described, setValues }: ManyProps) {
  const [draft, setDraft] = useState('');
  const addDraft = () => {
    const v = draft.trim();
    if (v && !filter.values.includes(v)) setValues([...filter.values, v]);
    setDraft('');
  };
  return (
    <div className="field qb-values">
      <label htmlFor={`${id}-value`}>Values</label>
      {filter.values.length > 0 && (
        <ul className="qb-chips" aria-label="Chosen values">
          {filter.values.map((v) => (
            <li key={v}>
              <span>{v}</span>
              <button type="button" className="small" aria-label={`Remove value ${v}`} onClick={() => setValues(filter.values.filter((x) => x !== v))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="qb-inline">
        <TextWithSuggestions
          id={`${id}-value`}
          type={type}
          value={draft}
          suggest={kind === 'string' ? { dataSourceId, dimension: filter.member } : undefined}
          extra={described}
          onChange={setDraft}
          onEnter={addDraft}
        />
        <button type="button" className="small" onClick={addDraft} disabled={!draft.trim()}>
          Add
        </button>
      </div>
    </div>
  );
}

interface TextProps {
  id: string;
  type: string;
  value: string;
  /** Suggest the field's own values (POST /dashboards/analytics/distinct-values), narrowed by what is typed. */
  suggest?: { dataSourceId: string; dimension: string };
  extra: Record<string, unknown>;
  onChange(value: string): void;
  onEnter?(): void;
}

function TextWithSuggestions({ id, type, value, suggest, extra, onChange, onEnter }: TextProps) {
  const search = useDebounced(value.trim(), 250);
  const key = suggest ? `distinct|${suggest.dataSourceId}|${suggest.dimension}|${search}` : null;
  const values = useApi(key, (signal) =>
    post<DistinctValues>('/dashboards/analytics/distinct-values', { ...suggest, search: search || undefined, limit: 50 }, { signal }),
  );
  const listId = `${id}-suggestions`;
  return (
    <>
      <input
        id={id}
        type={type}
        value={value}
        list={suggest ? listId : undefined}
        {...extra}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && onEnter) {
            e.preventDefault();
            onEnter();
          }
        }}
      />
      {suggest && (
        <datalist id={listId}>
          {(values.data?.values ?? []).map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
      )}
    </>
  );
}
