import { type BuilderState, CHART_NAMES, CHART_RULES, chartNotes, chartProblems, type Tristate } from './query-state';

interface Props {
  state: BuilderState;
  onChange(next: BuilderState): void;
}

/**
 * The chart type, as radio buttons: a type that cannot draw the current query is disabled and says why beside it
 * (the validate endpoint's chart rules); the chosen type stays chosen when the query stops fitting it, and the
 * builder says why it cannot be saved so.
 */
export function ChartTypePicker({ state, onChange }: Props) {
  const notes = chartNotes(state.chartType, state);
  return (
    <fieldset className="qb-group qb-chart-types">
      <legend>Chart type</legend>
      {CHART_NAMES.map((name) => {
        const problems = chartProblems(name, state);
        const chosen = state.chartType === name;
        const why = `qb-chart-${name}-why`;
        return (
          <div key={name} className="qb-chart-type">
            <label className="check">
              <input
                type="radio"
                name="qb-chart-type"
                value={name}
                checked={chosen}
                disabled={!chosen && problems.length > 0}
                aria-describedby={problems.length > 0 ? why : undefined}
                onChange={() => onChange({ ...state, chartType: name })}
              />
              {CHART_RULES[name].label}
            </label>
            {problems.length > 0 && (
              <p id={why} className={chosen ? 'field-problem' : 'help'}>
                {problems.join('; ')}
              </p>
            )}
          </div>
        );
      })}
      {notes.map((n) => (
        <p key={n} className="help qb-note">
          {n}
        </p>
      ))}
    </fieldset>
  );
}

const TRISTATE: Array<{ value: Tristate; label: string }> = [
  { value: 'auto', label: 'Automatic' },
  { value: 'on', label: 'Always' },
  { value: 'off', label: 'Never' },
];

/** The title and the displayConfig settings the shared chart module reads (src/dashboards/charts/display-config.ts). */
export function DisplaySettings({ state, onChange }: Props) {
  const set = (display: Partial<BuilderState['display']>) => onChange({ ...state, display: { ...state.display, ...display } });
  const cartesian = state.chartType === 'line' || state.chartType === 'area' || state.chartType === 'bar';
  const currencyOk = state.display.currency === '' || /^[A-Za-z]{3}$/.test(state.display.currency.trim());
  return (
    <fieldset className="qb-group">
      <legend>Title and display</legend>
      <div className="field">
        <label htmlFor="qb-title">Title</label>
        <input id="qb-title" required maxLength={200} value={state.title} onChange={(e) => onChange({ ...state, title: e.target.value })} />
      </div>
      <div className="qb-inline">
        <div className="field">
          <label htmlFor="qb-legend">Legend</label>
          <select id="qb-legend" value={state.display.legend} onChange={(e) => set({ legend: e.target.value as Tristate })}>
            {TRISTATE.map((t) => (
              <option key={t.value} value={t.value}>
                {t.value === 'auto' ? 'Automatic (two series or more)' : t.label}
              </option>
            ))}
          </select>
        </div>
        {cartesian && (
          <div className="field">
            <label htmlFor="qb-stacked">Stacked</label>
            <select id="qb-stacked" value={state.display.stacked} onChange={(e) => set({ stacked: e.target.value as Tristate })}>
              {TRISTATE.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.value === 'auto' ? `Automatic (${state.chartType === 'area' ? 'stacked' : 'not stacked'})` : t.value === 'on' ? 'Stacked' : 'Not stacked'}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor="qb-currency">Currency</label>
          <input
            id="qb-currency"
            size={5}
            maxLength={3}
            placeholder="USD"
            value={state.display.currency}
            aria-invalid={currencyOk ? undefined : true}
            aria-describedby="qb-currency-help"
            onChange={(e) => set({ currency: e.target.value })}
          />
          <p id="qb-currency-help" className={currencyOk ? 'help' : 'field-problem'}>
            {currencyOk ? 'For measures formatted as currency' : 'A three-letter ISO 4217 code, such as EUR'}
          </p>
        </div>
      </div>
    </fieldset>
  );
}
