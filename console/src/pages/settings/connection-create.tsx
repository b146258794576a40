import { type FormEvent, useState } from 'react';
import { get, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useApi } from '../../ui/use-api';
import { branchOf, ConfigFields, discriminantOf, type Draft, isFreeForm, parsePairs, toConfig, variantsOf } from './config-fields';
import type { JsonSchema } from './settings-types';

interface Props {
  types: string[];
  onCreated(): void;
  onCancel(): void;
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
  const variants = variantsOf(schema);
  const [variant, setVariant] = useState(variants[0] ?? '');
  const [draft, setDraft] = useState<Draft>({});
  // Types of free-form values (custom): name=value lines.
  const [pairs, setPairs] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const freeForm = isFreeForm(schema);
  const { properties, required } = schema.oneOf ? branchOf(schema, variant) : { properties: schema.properties ?? {}, required: schema.required ?? [] };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      let config: Record<string, unknown>;
      if (freeForm) {
        config = parsePairs(pairs);
      } else {
        config = toConfig(properties, draft);
        if (schema.oneOf) config[discriminantOf(schema)] = variant;
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
      {freeForm ? (
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
          error={error}
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
