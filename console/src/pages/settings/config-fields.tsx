import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import type { JsonSchema } from './settings-types';

/** Fields whose values are credentials even if the schema does not mark them writeOnly. */
const SECRET_NAME = /secret|password|passphrase|token|key|credential/i;

export const isSecretField = (name: string, schema: JsonSchema) => schema.writeOnly === true || SECRET_NAME.test(name);

/** A config form's values as typed: text for every input, booleans for checkboxes. */
export type Draft = Record<string, string | boolean>;

interface Props {
  idPrefix: string;
  properties: Record<string, JsonSchema>;
  required: string[];
  draft: Draft;
  onChange(name: string, value: string | boolean): void;
  /**
   * Editing a stored config: the write-only fields that hold a value. Each is
   * drawn blank, never required, with "leave blank to keep"; an optional one
   * can be removed (`removed`, toggled by `onRemove`).
   */
  secretsSet?: readonly string[];
  removed?: ReadonlySet<string>;
  onRemove?(name: string, remove: boolean): void;
  /** The API's refusal of the last save: each field shows its own problem (`config.<field>`). */
  error?: unknown;
}

/** One input per top-level property of a type's JSON Schema: secrets as password inputs, enums as selects, booleans as checkboxes. */
export function ConfigFields({ idPrefix, properties, required, draft, onChange, secretsSet = [], removed, onRemove, error }: Props) {
  return (
    <>
      {Object.entries(properties).map(([name, schema]) => {
        const id = `${idPrefix}-${name}`;
        const problem = problemAt(error, `config.${name}`);
        const kept = schema.writeOnly === true && secretsSet.includes(name);
        const isRemoved = removed?.has(name) === true;
        const help = [
          kept ? (isRemoved ? 'The stored value will be removed' : 'Set; leave blank to keep it') : '',
          schema.description,
          schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : '',
        ]
          .filter(Boolean)
          .join(' · ');
        const helpId = help ? `${id}-help` : undefined;
        const mandatory = required.includes(name) && !kept;
        if (schema.type === 'boolean') {
          return (
            <div key={name}>
              <label className="checkbox">
                <input
                  id={id}
                  type="checkbox"
                  checked={draft[name] === true}
                  onChange={(e) => onChange(name, e.target.checked)}
                  {...problemProps(id, problem)}
                />{' '}
                {name}
                {help && <span className="help"> ({help})</span>}
              </label>
              <ProblemNote id={id} problem={problem} />
            </div>
          );
        }
        const value = typeof draft[name] === 'string' ? draft[name] : '';
        const secret = isSecretField(name, schema);
        return (
          <div key={name} className="field">
            <label htmlFor={id}>
              {name}
              {mandatory && <span aria-hidden="true"> *</span>}
            </label>
            {schema.enum ? (
              <select id={id} value={value} required={mandatory} onChange={(e) => onChange(name, e.target.value)} {...problemProps(id, problem, helpId)}>
                <option value="">Choose…</option>
                {schema.enum.map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type={secret ? 'password' : schema.type === 'integer' || schema.type === 'number' ? 'number' : 'text'}
                autoComplete={secret ? 'new-password' : 'off'}
                value={value}
                required={mandatory}
                disabled={isRemoved}
                placeholder={
                  kept ? 'leave blank to keep' : schema.type === 'array' ? 'comma-separated' : schema.default !== undefined ? String(schema.default) : undefined
                }
                {...problemProps(id, problem, helpId)}
                onChange={(e) => onChange(name, e.target.value)}
              />
            )}
            {help && (
              <span id={helpId} className="help">
                {help}
              </span>
            )}
            {kept && onRemove && !required.includes(name) && (
              <label className="checkbox">
                <input type="checkbox" checked={isRemoved} onChange={(e) => onRemove(name, e.target.checked)} /> Remove the stored {name}
              </label>
            )}
            <ProblemNote id={id} problem={problem} />
          </div>
        );
      })}
    </>
  );
}

/** The config object to send: empty inputs left out (the API fills defaults), numbers and lists typed as the schema says. */
export function toConfig(properties: Record<string, JsonSchema>, draft: Draft): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(draft)) {
    const schema = properties[name] ?? {};
    if (value === '' || value === undefined) continue;
    if (typeof value === 'boolean') config[name] = value;
    else if (schema.type === 'integer' || schema.type === 'number') config[name] = Number(value);
    else if (schema.type === 'array')
      config[name] = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    else config[name] = value;
  }
  return config;
}

/** A stored config's non-secret values as a form's draft (the inverse of toConfig): lists comma-separated, numbers as text. */
export function toDraft(properties: Record<string, JsonSchema>, values: Record<string, unknown>): Draft {
  const draft: Draft = {};
  for (const [name, value] of Object.entries(values)) {
    if (!properties[name] || value === null || value === undefined) continue;
    if (typeof value === 'boolean') draft[name] = value;
    else if (Array.isArray(value)) draft[name] = value.map(String).join(', ');
    else if (typeof value === 'object') continue;
    else draft[name] = String(value);
  }
  return draft;
}

/** The branch of a multi-variant schema (form-auth, custom-oauth) for `variant`, its discriminator field left out. */
export function branchOf(schema: JsonSchema, variant: string): { properties: Record<string, JsonSchema>; required: string[] } {
  const key = discriminantOf(schema);
  const branch = schema.oneOf?.find((b) => b.properties?.[key]?.const === variant);
  const properties = { ...(branch?.properties ?? {}) };
  delete properties[key];
  return { properties, required: (branch?.required ?? []).filter((r) => r !== key) };
}

/** The field naming a multi-variant config's variant. */
export const discriminantOf = (schema: JsonSchema) => schema.discriminator?.propertyName ?? 'variant';

/** The variants of a multi-variant schema, in its order; empty for a single-shape type. */
export const variantsOf = (schema: JsonSchema) => schema.oneOf?.map((b) => String(b.properties?.[discriminantOf(schema)]?.const)) ?? [];

/** A type whose config is free-form named values (custom): edited as name=value lines. */
export const isFreeForm = (schema: JsonSchema) => !schema.oneOf && (!schema.properties || Object.keys(schema.properties).length === 0);

/** name=value lines as a config; a line without a name before its = is refused, naming it. */
export function parsePairs(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const at = line.indexOf('=');
        if (at < 1) throw new Error(`"${line.split('=')[0]}": write each value as name=value`);
        return [line.slice(0, at).trim(), line.slice(at + 1)];
      }),
  );
}
