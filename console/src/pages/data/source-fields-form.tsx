import { ApiError } from '../../api/client';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { changeField, type FieldDraft, type FieldRole, ROLE_LABELS, rolesFor, timeFieldOf, TYPE_LABELS } from './source-fields';

interface Props {
  drafts: FieldDraft[];
  onChange(drafts: FieldDraft[]): void;
  /** The last save's error: its details under `recordSchema.fields` are shown at the fields they name. */
  error: unknown;
  disabled?: boolean;
}

/** Every field with its type, a label input and a role choice; one time dimension at a time. */
export function SourceFieldsForm({ drafts, onChange, error, disabled }: Props) {
  const setField = (name: string, change: Partial<FieldDraft>) => onChange(changeField(drafts, name, change));
  // Problems of the field set as a whole ("exactly one date field…", "at least one field").
  const overall = error instanceof ApiError ? error.details.filter((d) => d.path === 'recordSchema.fields' || d.path === 'recordSchema') : [];
  const hasDate = drafts.some((d) => d.type === 'date');

  return (
    <div className="source-fields">
      {!hasDate && (
        <p className="notice">
          These records hold no date field (an ISO 8601 date or time in every record that has it). A data source needs one as its time dimension: write one into
          the records, then try again.
        </p>
      )}
      {hasDate && !timeFieldOf(drafts) && <p className="notice">Choose one date field as the time dimension: charts place each record in time by it.</p>}
      {overall.map((p, i) => (
        <p key={i} className="field-problem" role="alert">
          {p.message}
        </p>
      ))}
      <ul className="field-roles">
        {drafts.map((d) => {
          const id = `field-${d.name}`;
          const labelProblem = problemAt(error, `recordSchema.fields.${d.name}.label`);
          const roleProblem = problemAt(error, `recordSchema.fields.${d.name}`);
          return (
            <li key={d.name} className={d.role === 'omit' ? 'omitted' : undefined}>
              <fieldset disabled={disabled}>
                <legend>
                  <code>{d.name}</code>
                </legend>
                <span className="field-type">{TYPE_LABELS[d.type] ?? d.type}</span>
                <div className="field">
                  <label htmlFor={`${id}-label`}>Label</label>
                  <input
                    id={`${id}-label`}
                    value={d.label}
                    required={d.role !== 'omit'}
                    maxLength={200}
                    onChange={(e) => setField(d.name, { label: e.target.value })}
                    {...problemProps(`${id}-label`, labelProblem)}
                  />
                  <ProblemNote id={`${id}-label`} problem={labelProblem} />
                </div>
                <div className="field">
                  <label htmlFor={`${id}-role`}>Role</label>
                  <select
                    id={`${id}-role`}
                    value={d.role}
                    onChange={(e) => setField(d.name, { role: e.target.value as FieldRole })}
                    {...problemProps(`${id}-role`, roleProblem === labelProblem ? undefined : roleProblem)}
                  >
                    {rolesFor(d.type).map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABELS[r]}
                      </option>
                    ))}
                  </select>
                  <ProblemNote id={`${id}-role`} problem={roleProblem === labelProblem ? undefined : roleProblem} />
                </div>
              </fieldset>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
