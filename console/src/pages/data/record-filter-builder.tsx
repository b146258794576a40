import { type FormEvent, useState } from 'react';
import { buildWhere, type Condition, MAX_CONDITIONS, type Operator, operatorsFor, takesValue, valueHint } from './filter-conditions';
import { type ColumnType, type FilterField, TYPE_LABEL } from './record-columns';
import './tables.css';

interface Props {
  /** The fields records hold, typed (inferred from the table's first records). */
  fields: FilterField[];
  prefix: string;
  /** The conditions the URL holds; their problems, if any, show at once. */
  conditions: Condition[];
  /** The whole URL filter could not be read into conditions (hand-written JSON): said, and Clear offered. */
  urlProblem?: string;
  onApply(prefix: string, where: Record<string, unknown> | undefined): void;
}

const typeOf = (fields: FilterField[], path: string): ColumnType => fields.find((f) => f.path === path)?.type ?? 'mixed';

/** A new condition's operator and value for a field: its type's first comparison, and `true` for a yes/no field. */
function reset(field: string, type: ColumnType, operator?: Operator): Condition {
  const offered = operatorsFor(type).map((o) => o.id);
  return { field, operator: operator && offered.includes(operator) ? operator : offered[0], value: type === 'boolean' ? 'true' : '' };
}

/**
 * Value filters built from the table's fields, comparisons and typed values,
 * mapped exactly onto the API's `where` (filter-conditions.ts). A value that
 * is not of the field's type is refused at its box, naming what the field
 * holds, and nothing is applied until every condition holds up. Applying
 * puts the filter in the URL (the page reads it back from there).
 */
export function RecordFilterBuilder({ fields, prefix, conditions, urlProblem, onApply }: Props) {
  const [draftPrefix, setDraftPrefix] = useState(prefix);
  const [rows, setRows] = useState<Condition[]>(conditions);
  // Problems show once a value is typed, or for every row after Apply (and at once for a filter read from the URL).
  const [touched, setTouched] = useState<Set<number>>(() => new Set(conditions.map((_, i) => i)));
  const [attempted, setAttempted] = useState(conditions.length > 0);
  const built = buildWhere(rows, fields);

  function change(index: number, next: Condition) {
    setRows((current) => current.map((row, i) => (i === index ? next : row)));
    setTouched((current) => new Set(current).add(index));
  }
  function remove(index: number) {
    setRows((current) => current.filter((_, i) => i !== index));
    setTouched((current) => new Set([...current].filter((i) => i !== index).map((i) => (i > index ? i - 1 : i))));
  }
  function add() {
    const first = fields[0];
    setRows((current) => [...current, first ? reset(first.path, first.type) : { field: '', operator: '$eq', value: '' }]);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (built.problems.size > 0) {
      setAttempted(true);
      const first = Math.min(...built.problems.keys());
      document.getElementById(`condition-${first}-value`)?.focus();
      return;
    }
    onApply(draftPrefix, built.where);
  }

  const filtered = prefix !== '' || conditions.length > 0 || urlProblem !== undefined;
  return (
    <form className="filter-builder" role="search" aria-label="Filter records" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="filter-prefix">Key starts with</label>
        <input id="filter-prefix" value={draftPrefix} onChange={(e) => setDraftPrefix(e.target.value)} placeholder="order:2026-" />
      </div>
      <fieldset className="conditions">
        <legend>Value conditions (all must hold)</legend>
        {rows.length === 0 && <p className="help">{fields.length ? 'None yet.' : 'The table has no fields to filter on yet.'}</p>}
        {rows.map((row, index) => {
          const type = typeOf(fields, row.field);
          const problem = touched.has(index) || attempted ? built.problems.get(index) : undefined;
          return (
            <ConditionRow
              key={index}
              index={index}
              row={row}
              type={type}
              fields={fields}
              problem={problem}
              onChange={(next) => change(index, next)}
              onRemove={() => remove(index)}
            />
          );
        })}
        {fields.length > 0 && rows.length < MAX_CONDITIONS && (
          <button type="button" onClick={add}>
            Add condition
          </button>
        )}
      </fieldset>
      {urlProblem && (
        <p role="alert" className="error filter-problem">
          {urlProblem}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary">
          Apply
        </button>
        {filtered && (
          <button type="button" onClick={() => onApply('', undefined)}>
            Clear
          </button>
        )}
      </div>
    </form>
  );
}

interface RowProps {
  index: number;
  row: Condition;
  type: ColumnType;
  fields: FilterField[];
  problem: string | undefined;
  onChange(next: Condition): void;
  onRemove(): void;
}

function ConditionRow({ index, row, type, fields, problem, onChange, onRemove }: RowProps) {
  const id = `condition-${index}`;
  const hint = valueHint(type, row.operator);
  const describedBy = [problem ? `${id}-problem` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  // A field named by the URL that the first records do not hold is still offered, as itself.
  const options = fields.some((f) => f.path === row.field) || !row.field ? fields : [...fields, { path: row.field, type }];
  return (
    <div className="condition" role="group" aria-label={`Condition ${index + 1}`}>
      <div className="field">
        <label htmlFor={`${id}-field`}>Field</label>
        <select id={`${id}-field`} value={row.field} onChange={(e) => onChange(reset(e.target.value, typeOf(fields, e.target.value), row.operator))}>
          {options.map((f) => (
            <option key={f.path} value={f.path}>
              {f.path} ({TYPE_LABEL[f.type]})
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-operator`}>Comparison</label>
        <select id={`${id}-operator`} value={row.operator} onChange={(e) => onChange({ ...row, operator: e.target.value as Operator })}>
          {operatorsFor(type).map((o) => (
            <option key={o.id} value={o.id}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {takesValue(row.operator) && (
        <div className="field value">
          <label htmlFor={`${id}-value`}>Value</label>
          {type === 'boolean' ? (
            <select id={`${id}-value`} value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })} aria-describedby={describedBy}>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input
              id={`${id}-value`}
              value={row.value}
              inputMode={type === 'number' ? 'decimal' : undefined}
              autoComplete="off"
              onChange={(e) => onChange({ ...row, value: e.target.value })}
              aria-invalid={problem ? true : undefined}
              aria-describedby={describedBy}
            />
          )}
          {hint && (
            <span id={`${id}-hint`} className="help">
              {hint}
            </span>
          )}
        </div>
      )}
      <button type="button" className="link-button remove" onClick={onRemove} aria-label={`Remove condition ${index + 1}`}>
        Remove
      </button>
      {problem && (
        <p id={`${id}-problem`} className="field-problem condition-problem">
          {problem}
        </p>
      )}
    </div>
  );
}
