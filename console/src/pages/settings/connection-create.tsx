import { type FormEvent, useState } from 'react';
import { get, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useApi } from '../../ui/use-api';
import { ConfigFields, type Draft, toConfig } from './config-fields';
import type { JsonSchema } from './settings-types';

interface Props {
  types: string[];
  onCreated(): void;
  onCancel(): void;
}

/** The branch of a multi-variant schema (form-auth, custom-oauth) for `variant`, its discriminator field left out. */
function branchOf(schema: JsonSchema, variant: string): { properties: Record<string, JsonSchema>; required: string[] } {
  const key = schema.discriminator?.propertyName ?? 'variant';
  const branch = schema.oneOf?.find((b) => b.properties?.[key]?.const === variant);
  const properties = { ...(branch?.properties ?? {}) };
  delete properties[key];
  return { properties, required: (branch?.required ?? []).filter((r) => r !== key) };
}

/** A new connection: name, type, and a config form generated from the type's JSON Schema. */
export function ConnectionCreate({ types, onCreated, onCancel }: Props) {
  const [name, setName] = useState('');
  const [type, setType] = useState('');
  const schemaKey = type ? `/connections/types/${encodeURIComponent(type)}/schema` : null;
  const schema = useApi(schemaKey, (signal) => get<{ type: string; schema: JsonSchema }>(schemaKey!, { signal }));
  return (
    <section className="panel" aria-labelledby="new-connection-heading">
      <h2 id="new-connection-heading">New connection</h2>
      <div className="form-row">
        <div className="field">
          <label htmlFor="connection-name">Name</label>
          <input id="connection-name" value={name} onChange={(e) => setName(e.target.value)} aria-describedby="connection-name-help" autoComplete="off" />
          <span id="connection-name-help" className="help">
            Steps use it as $connections.{name || 'name'}
          </span>
        </div>
        <div className="field">
          <label htmlFor="connection-type">Type</label>
          <select id="connection-type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">Choose a type…</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorBox error={schema.error} />
      {type && schema.data?.type === type && (
        // Keyed by type: another type starts from an empty config.
        <ConfigForm key={type} name={name} type={type} schema={schema.data.schema} onCreated={onCreated} onCancel={onCancel} />
      )}
      {!type && (
        <div className="form-actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
    </section>
  );
}

function ConfigForm({ name, type, schema, onCreated, onCancel }: { name: string; type: string; schema: JsonSchema; onCreated(): void; onCancel(): void }) {
  const variants = schema.oneOf?.map((b) => String(b.properties?.[schema.discriminator?.propertyName ?? 'variant']?.const)) ?? [];
  const [variant, setVariant] = useState(variants[0] ?? '');
  const [draft, setDraft] = useState<Draft>({});
  // Types of free-form values (custom): name=value lines.
  const [pairs, setPairs] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const freeForm = !schema.properties || (Object.keys(schema.properties).length === 0 && !schema.oneOf);
  const { properties, required } = schema.oneOf ? branchOf(schema, variant) : { properties: schema.properties ?? {}, required: schema.required ?? [] };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      let config: Record<string, unknown>;
      if (freeForm && !schema.oneOf) {
        config = Object.fromEntries(
          pairs
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean)
            .map((line) => {
              const at = line.indexOf('=');
              if (at < 1) throw new Error(`"${line.split('=')[0]}": write each value as name=value`);
              return [line.slice(0, at).trim(), line.slice(at + 1)];
            }),
        );
      } else {
        config = toConfig(properties, draft);
        if (schema.oneOf) config[schema.discriminator?.propertyName ?? 'variant'] = variant;
      }
      await post('/connections', { name, type, config });
      setDraft({});
      setPairs('');
      onCreated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stacked-form" aria-label={`${type} configuration`} onSubmit={(e) => void submit(e)}>
      {schema.description && <p className="muted">{schema.description}</p>}
      {variants.length > 0 && (
        <div className="field">
          <label htmlFor="connection-variant">Variant</label>
          <select id="connection-variant" value={variant} onChange={(e) => setVariant(e.target.value)}>
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </div>
      )}
      {freeForm && !schema.oneOf ? (
        <div className="field">
          <label htmlFor="connection-pairs">Values (one name=value a line)</label>
          <textarea
            id="connection-pairs"
            className="mono secret-text"
            rows={4}
            value={pairs}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => setPairs(e.target.value)}
          />
        </div>
      ) : (
        <ConfigFields
          idPrefix="config"
          properties={properties}
          required={required}
          draft={draft}
          onChange={(field, value) => setDraft((d) => ({ ...d, [field]: value }))}
        />
      )}
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create connection'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
