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

export const ROLE_LABELS: Record<FieldRole, string> = {
  dimension: 'Dimension',
  measure: 'Measure (sum)',
  time: 'Time dimension',
  omit: 'Left out',
};

/** The roles the API allows a field of this type. */
export function rolesFor(type: FieldType): FieldRole[] {
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

/** The drafts with one field changed; choosing a new time dimension makes the old one a plain date dimension (there is exactly one). */
export function changeField(drafts: readonly FieldDraft[], name: string, change: Partial<FieldDraft>): FieldDraft[] {
  return drafts.map((d) => {
    if (d.name === name) return { ...d, ...change };
    if (change.role === 'time' && d.role === 'time') return { ...d, role: 'dimension' };
    return d;
  });
}
