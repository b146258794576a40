import { ApiError } from '../../api/client';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import type { FieldDefinition, FieldType } from './data-types';

/**
 * A source's fields as a person edits them: each with its label and one role. The API's schema rules
 * (src/data-sources/data-sources.schemas.ts) are the roles offered: a number field may be a measure (summed in
 * charts), a date field the time dimension (exactly one), any field a dimension; "left out" drops it.
 */
export type FieldRole = 'dimension' | 'measure' | 'time' | 'omit';
export interface FieldDraft {
  name: string;
  type: FieldType;
  label: string;
  role: FieldRole;
}

export const TYPE_LABELS: Record<FieldType, string> = { date: 'Date', string: 'Text', number: 'Number' };

const ROLE_LABELS: Record<FieldRole, string> = {
  dimension: 'Dimension',
  measure: 'Measure (sum)',
  time: 'Time dimension',
  omit: 'Left out',
};

function rolesFor(type: FieldType): FieldRole[] {
  if (type === 'number') return ['measure', 'dimension', 'omit'];
  if (type === 'date') return ['time', 'dimension', 'omit'];
  return ['dimension', 'omit'];
}

/** Drafts of a schema's fields; with `pickTime`, the first date field becomes the time dimension when none is (inferred fields). */
export function draftsOf(fields: Record<string, FieldDefinition>, pickTime = false): FieldDraft[] {
  const drafts = Object.entries(fields).map(([name, f]): FieldDraft => {
    const role: FieldRole = f.timeDimension ? 'time' : f.measure ? 'measure' : 'dimension';
    return { name, type: f.type, label: f.label, role };
  });
  if (pickTime && !drafts.some((d) => d.role === 'time')) {
    const firstDate = drafts.find((d) => d.type === 'date');
    if (firstDate) firstDate.role = 'time';
  }
  return drafts;
}

/** The record schema's `fields` of the drafts (left-out fields dropped). */
export function fieldsOf(drafts: readonly FieldDraft[]): Record<string, FieldDefinition> {
  return Object.fromEntries(
    drafts
      .filter((d) => d.role !== 'omit')
      .map((d) => [
        d.name,
        { type: d.type, label: d.label, ...(d.role === 'measure' ? { measure: true } : {}), ...(d.role === 'time' ? { timeDimension: true } : {}) },
      ]),
  );
}

/** A name as a label: `order_total` → `Order total` (as the API labels inferred fields). */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const timeFieldOf = (drafts: readonly FieldDraft[]) => drafts.find((d) => d.role === 'time')?.name;

interface Props {
  drafts: FieldDraft[];
  onChange(drafts: FieldDraft[]): void;
  /** The last save's error: its details under `recordSchema.fields` are shown at the fields they name. */
  error: unknown;
  disabled?: boolean;
}

/** Every field with its type, a label input and a role choice; one time dimension at a time. */
export function SourceFieldsForm({ drafts, onChange, error, disabled }: Props) {
  const setField = (name: string, change: Partial<FieldDraft>) =>
    onChange(
      drafts.map((d) => {
        if (d.name === name) return { ...d, ...change };
        // Choosing a new time dimension makes the old one a plain date dimension: there is exactly one.
        if (change.role === 'time' && d.role === 'time') return { ...d, role: 'dimension' };
        return d;
      }),
    );
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
