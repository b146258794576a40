import { type FormEvent, useState } from 'react';
import { patch, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { MemberActions } from './member-actions';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { ScrollBox } from '../../ui/scroll-box';
import type { CalculatedField, DataSource, FormulaPreview } from './data-types';
import { parseFormula } from './expression';

interface Props {
  source: DataSource;
  canEdit: boolean;
  onChanged(): void;
}

/** The source's calculated fields; dashboards:admin adds and changes them (after previewing the values) and deletes them. */
export function CalculatedFields({ source, canEdit, onChanged }: Props) {
  const fields = source.recordSchema.calculatedFields;
  // The form open below the list: a new field ({}), or the field being changed.
  const [form, setForm] = useState<{ field?: CalculatedField } | null>(null);
  return (
    <section aria-labelledby="calculated-heading">
      <div className="section-header">
        <h2 id="calculated-heading">Calculated fields</h2>
        {canEdit && !form && (
          <button type="button" onClick={() => setForm({})}>
            Add calculated field
          </button>
        )}
      </div>
      {fields.length === 0 ? (
        <p className="empty-state">No calculated fields. A calculated field is arithmetic over number fields, e.g. amount * 1.2.</p>
      ) : (
        <ScrollBox label="Calculated fields">
          <table className="list calculated">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Formula</th>
                <th scope="col">Role</th>
                {canEdit && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {fields.map((f) => (
                <CalculatedRow key={f.id} sourceId={source.id} field={f} canEdit={canEdit} onEdit={() => setForm({ field: f })} onChanged={onChanged} />
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {form && (
        <CalculatedFieldForm
          key={form.field?.id ?? 'new'}
          source={source}
          field={form.field}
          onDone={() => setForm(null)}
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
  field: CalculatedField;
  canEdit: boolean;
  onEdit(): void;
  onChanged(): void;
}

function CalculatedRow({ sourceId, field, canEdit, onEdit, onChanged }: RowProps) {
  return (
    <tr>
      <th scope="row">
        <code>{field.name}</code>
      </th>
      <td>{field.label}</td>
      <td>
        <code>{field.formula || describe(field.expression)}</code>
      </td>
      <td>{field.measure ? <span className="badge">Measure</span> : <span className="muted">Dimension</span>}</td>
      {canEdit && (
        <MemberActions name={field.name} path={`/dashboards/data-sources/${sourceId}/calculated-fields/${field.id}`} onEdit={onEdit} onDeleted={onChanged} />
      )}
    </tr>
  );
}

/** An expression tree as text, for fields saved without a formula. */
function describe(e: CalculatedField['expression']): string {
  if (e.type === 'Identifier') return e.name;
  if (e.type === 'Literal') return e.raw ?? String(e.value);
  return `(${describe(e.left)} ${e.operator} ${describe(e.right)})`;
}

/** A new calculated field, or a change to one (`field`): the same form, POSTed or PATCHed. */
function CalculatedFieldForm({ source, field, onDone, onSaved }: { source: DataSource; field?: CalculatedField; onDone(): void; onSaved(): void }) {
  const [name, setName] = useState(field?.name ?? '');
  const [label, setLabel] = useState(field?.label ?? '');
  const [formula, setFormula] = useState(field ? field.formula || describe(field.expression) : '');
  const [measure, setMeasure] = useState(field?.measure ?? false);
  const [preview, setPreview] = useState<{ formula: string; values: Array<number | null> }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const numberFields = Object.entries(source.recordSchema.fields)
    .filter(([, f]) => f.type === 'number')
    .map(([n]) => n);
  const base = `/dashboards/data-sources/${source.id}/calculated-fields`;

  async function run(action: () => Promise<void>) {
    setError(undefined);
    setBusy(true);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const showPreview = () =>
    run(async () => {
      const expression = parseFormula(formula);
      const { values } = await post<FormulaPreview>(`${base}/preview`, { expression });
      setPreview({ formula, values });
    });

  function save(event: FormEvent) {
    event.preventDefault();
    void run(async () => {
      const expression = parseFormula(formula);
      const body = { name, label: label || name, expression, formula: formula.trim(), measure };
      if (field) await patch(`${base}/${field.id}`, body);
      else await post(base, { ...body, type: 'number' });
      onSaved();
    });
  }

  const nameProblem = problemAt(error, 'name');
  const labelProblem = problemAt(error, 'label');
  const expressionProblem = problemAt(error, 'expression');
  return (
    <form className="panel stacked-form" aria-labelledby="add-calculated-heading" onSubmit={save}>
      <h3 id="add-calculated-heading">{field ? `Change ${field.name}` : 'New calculated field'}</h3>
      <div className="form-row">
        <div className="field">
          <label htmlFor="calc-name">Name</label>
          <input
            id="calc-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            pattern="[A-Za-z][A-Za-z0-9_]{0,62}"
            {...problemProps('calc-name', nameProblem, 'calc-name-help')}
          />
          <span id="calc-name-help" className="help">
            A letter, then letters, digits or _{field ? '; widgets using the old name are not rewritten' : ''}
          </span>
          <ProblemNote id="calc-name" problem={nameProblem} />
        </div>
        <div className="field">
          <label htmlFor="calc-label">Label</label>
          <input id="calc-label" value={label} onChange={(e) => setLabel(e.target.value)} placeholder={name} {...problemProps('calc-label', labelProblem)} />
          <ProblemNote id="calc-label" problem={labelProblem} />
        </div>
        <div className="field">
          <label htmlFor="calc-type">Type</label>
          <select id="calc-type" value="number" disabled aria-describedby="calc-type-help">
            <option value="number">Number</option>
          </select>
          <span id="calc-type-help" className="help">
            Calculated fields are arithmetic
          </span>
        </div>
      </div>
      <div className="field">
        <label htmlFor="calc-formula">Expression</label>
        <input
          id="calc-formula"
          className="mono"
          value={formula}
          onChange={(e) => setFormula(e.target.value)}
          required
          placeholder={numberFields.length > 0 ? `${numberFields[0]} * 1.2` : 'a * b'}
          {...problemProps('calc-formula', expressionProblem, 'calc-formula-help')}
        />
        <span id="calc-formula-help" className="help">
          + − * / % and parentheses over number fields{numberFields.length > 0 ? `: ${numberFields.join(', ')}` : ''}
        </span>
        <ProblemNote id="calc-formula" problem={expressionProblem} />
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={measure} onChange={(e) => setMeasure(e.target.checked)} /> Measure (summed in charts)
      </label>
      <ErrorBox error={error} />
      {preview && (
        <div className="preview" aria-labelledby="preview-heading">
          <h4 id="preview-heading">
            Preview of <code>{preview.formula}</code> on the first {preview.values.length} records
          </h4>
          {preview.values.length === 0 ? (
            <p className="muted">The source has no records to preview on.</p>
          ) : (
            <ol className="preview-values">
              {preview.values.map((v, i) => (
                <li key={i}>{v === null ? <span className="muted">null</span> : v.toLocaleString(undefined, { maximumFractionDigits: 6 })}</li>
              ))}
            </ol>
          )}
        </div>
      )}
      <div className="form-actions">
        <button type="button" onClick={() => void showPreview()} disabled={busy || !formula.trim()}>
          Preview
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Save field
        </button>
        <button type="button" onClick={onDone} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
