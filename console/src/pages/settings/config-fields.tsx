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
}

/** One input per top-level property of a type's JSON Schema: secrets as password inputs, enums as selects, booleans as checkboxes. */
export function ConfigFields({ idPrefix, properties, required, draft, onChange }: Props) {
  return (
    <>
      {Object.entries(properties).map(([name, schema]) => {
        const id = `${idPrefix}-${name}`;
        const help = [schema.description, schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : ''].filter(Boolean).join(' · ');
        const mandatory = required.includes(name);
        if (schema.type === 'boolean') {
          return (
            <label key={name} className="checkbox">
              <input id={id} type="checkbox" checked={draft[name] === true} onChange={(e) => onChange(name, e.target.checked)} /> {name}
              {help && <span className="help"> ({help})</span>}
            </label>
          );
        }
        const value = typeof draft[name] === 'string' ? draft[name] : '';
        return (
          <div key={name} className="field">
            <label htmlFor={id}>
              {name}
              {mandatory && <span aria-hidden="true"> *</span>}
            </label>
            {schema.enum ? (
              <select id={id} value={value} required={mandatory} onChange={(e) => onChange(name, e.target.value)}>
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
                type={isSecretField(name, schema) ? 'password' : schema.type === 'integer' || schema.type === 'number' ? 'number' : 'text'}
                autoComplete={isSecretField(name, schema) ? 'new-password' : 'off'}
                value={value}
                required={mandatory}
                placeholder={schema.type === 'array' ? 'comma-separated' : schema.default !== undefined ? String(schema.default) : undefined}
                aria-describedby={help ? `${id}-help` : undefined}
                onChange={(e) => onChange(name, e.target.value)}
              />
            )}
            {help && (
              <span id={`${id}-help`} className="help">
                {help}
              </span>
            )}
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
