import type { MetaEntry } from '../dashboard-api';
import {
  type BuilderState,
  DATE_RANGE_PHRASES,
  type DateRange,
  GRANULARITIES,
  limitProblem,
  MAX_LIMIT,
  orderable,
  rangeProblem,
  toggled,
  withTime,
} from './query-state';

interface Props {
  state: BuilderState;
  meta: MetaEntry;
  onChange(next: BuilderState): void;
}

/** A member's title from the source's metadata, or its field name when the source no longer has it. */
export function memberTitle(meta: MetaEntry | undefined, member: string): string {
  const found = meta?.measures.find((m) => m.name === member) ?? meta?.dimensions.find((d) => d.name === member);
  return found?.title ?? member.slice(member.indexOf('.') + 1);
}

/** Measures and dimensions as two groups of checkboxes; a saved member the source no longer has stays listed, to be unticked. */
export function MemberPickers({ state, meta, onChange }: Props) {
  const plainDims = meta.dimensions.filter((d) => d.type !== 'time');
  const list = (kind: 'measures' | 'dimensions', members: Array<{ name: string; title: string; calculated?: boolean }>) => {
    const missing = state[kind]
      .filter((name) => !members.some((m) => m.name === name))
      .map((name) => ({ name, title: `${memberTitle(meta, name)} (not in the source)` }));
    return [...members, ...missing];
  };
  return (
    <div className="qb-members">
      <fieldset className="qb-group">
        <legend>Measures</legend>
        {list('measures', meta.measures).map((m) => (
          <label key={m.name} className="check">
            <input type="checkbox" checked={state.measures.includes(m.name)} onChange={(e) => onChange(toggled(state, 'measures', m.name, e.target.checked))} />
            {m.title}
          </label>
        ))}
      </fieldset>
      <fieldset className="qb-group">
        <legend>Group by</legend>
        {plainDims.length === 0 && state.dimensions.length === 0 && <p className="muted">This source has no dimensions</p>}
        {list('dimensions', plainDims).map((d) => (
          <label key={d.name} className="check">
            <input
              type="checkbox"
              checked={state.dimensions.includes(d.name)}
              onChange={(e) => onChange(toggled(state, 'dimensions', d.name, e.target.checked))}
            />
            {d.title}
          </label>
        ))}
      </fieldset>
    </div>
  );
}

const rangeValue = (r: DateRange) => (r.kind === 'phrase' ? `phrase:${r.phrase}` : r.kind);

/** The time dimension, its granularity (none: the range only bounds the query) and its date range. */
export function TimePicker({ state, meta, onChange }: Props) {
  const timeDims = meta.dimensions.filter((d) => d.type === 'time');
  const { time } = state;
  const statCard = state.chartType === 'stat-card';
  const phrases =
    time.range.kind === 'phrase' && !DATE_RANGE_PHRASES.includes(time.range.phrase) ? [...DATE_RANGE_PHRASES, time.range.phrase] : DATE_RANGE_PHRASES;
  const pickRange = (value: string) => {
    const range: DateRange =
      value === 'none'
        ? { kind: 'none' }
        : value === 'between'
          ? { kind: 'between', from: '', to: '' }
          : { kind: 'phrase', phrase: value.slice('phrase:'.length) };
    onChange(withTime(state, { range }));
  };
  const problem = time.dimension ? rangeProblem(time.range) : undefined;
  return (
    <fieldset className="qb-group qb-time">
      <legend>Time</legend>
      <div className="field">
        <label htmlFor="qb-time-dimension">Time dimension</label>
        <select id="qb-time-dimension" value={time.dimension} onChange={(e) => onChange(withTime(state, { dimension: e.target.value }))}>
          <option value="">None</option>
          {timeDims.map((d) => (
            <option key={d.name} value={d.name}>
              {d.title}
            </option>
          ))}
          {time.dimension && !timeDims.some((d) => d.name === time.dimension) && <option value={time.dimension}>{memberTitle(meta, time.dimension)}</option>}
        </select>
      </div>
      <div className="field">
        <label htmlFor="qb-granularity">Granularity</label>
        <select
          id="qb-granularity"
          value={statCard ? '' : time.granularity}
          disabled={!time.dimension || statCard}
          aria-describedby={statCard ? 'qb-granularity-note' : undefined}
          onChange={(e) => onChange(withTime(state, { granularity: e.target.value }))}
        >
          <option value="">None (the range only bounds the query)</option>
          {GRANULARITIES.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
        {statCard && (
          <p id="qb-granularity-note" className="help">
            A stat card is one number: its time dimension only bounds it.
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor="qb-date-range">Date range</label>
        <select id="qb-date-range" value={rangeValue(time.range)} disabled={!time.dimension} onChange={(e) => pickRange(e.target.value)}>
          <option value="none">All time</option>
          {phrases.map((p) => (
            <option key={p} value={`phrase:${p}`}>
              {p}
            </option>
          ))}
          <option value="between">Between two dates…</option>
        </select>
      </div>
      {time.dimension && time.range.kind === 'between' && (
        <div className="qb-inline">
          <div className="field">
            <label htmlFor="qb-range-from">From</label>
            <input
              id="qb-range-from"
              type="date"
              value={time.range.from}
              onChange={(e) => time.range.kind === 'between' && onChange(withTime(state, { range: { ...time.range, from: e.target.value } }))}
            />
          </div>
          <div className="field">
            <label htmlFor="qb-range-to">To</label>
            <input
              id="qb-range-to"
              type="date"
              value={time.range.to}
              onChange={(e) => time.range.kind === 'between' && onChange(withTime(state, { range: { ...time.range, to: e.target.value } }))}
            />
          </div>
        </div>
      )}
      {problem && <p className="field-problem">{problem}</p>}
    </fieldset>
  );
}

/** The order (members of the query, each ascending or descending) and the row limit. */
export function OrderAndLimit({ state, meta, onChange }: Props) {
  const members = orderable(state);
  const free = members.filter((m) => !state.order.some((o) => o.member === m));
  const setOrder = (order: BuilderState['order']) => onChange({ ...state, order });
  const problem = limitProblem(state.limit);
  return (
    <fieldset className="qb-group">
      <legend>Order and limit</legend>
      {state.order.length === 0 && <p className="muted">As the source answers (Cube orders by the first measure, or the time)</p>}
      <ol className="qb-order">
        {state.order.map((o, i) => (
          <li key={o.member} className="qb-inline">
            <span>{memberTitle(meta, o.member)}</span>
            <select
              aria-label={`Direction of ${memberTitle(meta, o.member)}`}
              value={o.direction}
              onChange={(e) => setOrder(state.order.map((x, j) => (j === i ? { ...x, direction: e.target.value as 'asc' | 'desc' } : x)))}
            >
              <option value="asc">ascending</option>
              <option value="desc">descending</option>
            </select>
            <button
              type="button"
              className="small"
              aria-label={`Remove ${memberTitle(meta, o.member)} from the order`}
              onClick={() => setOrder(state.order.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      {free.length > 0 && (
        <div className="field">
          <label htmlFor="qb-order-add">Order by</label>
          <select id="qb-order-add" value="" onChange={(e) => e.target.value && setOrder([...state.order, { member: e.target.value, direction: 'desc' }])}>
            <option value="">Add a field…</option>
            {free.map((m) => (
              <option key={m} value={m}>
                {memberTitle(meta, m)}
              </option>
            ))}
          </select>
        </div>
      )}
      {members.length === 0 && <p className="muted">Choose measures or dimensions to order by them</p>}
      <div className="field">
        <label htmlFor="qb-limit">Row limit</label>
        <input
          id="qb-limit"
          inputMode="numeric"
          placeholder="None"
          value={state.limit}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'qb-limit-problem' : 'qb-limit-help'}
          onChange={(e) => onChange({ ...state, limit: e.target.value.trim() })}
        />
        {problem ? (
          <p id="qb-limit-problem" className="field-problem">
            {problem}
          </p>
        ) : (
          <p id="qb-limit-help" className="help">
            1 to {MAX_LIMIT.toLocaleString('en-US')}; none: the API&apos;s default
          </p>
        )}
      </div>
    </fieldset>
  );
}
