import { type FormEvent, useEffect, useRef, useState } from 'react';
import { get, patch } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { useApi } from '../../ui/use-api';
import { branchOf, ConfigFields, discriminantOf, type Draft, isFreeForm, parsePairs, toConfig, toDraft, variantsOf } from './config-fields';
import type { Connection, JsonSchema, RedactedConfig } from './settings-types';

interface Props {
  connection: Connection;
  onSaved(): void;
  onCancel(): void;
}

/**
 * Editing a connection without ever holding its secrets: the form starts from
 * GET /connections/{id}/config/redacted (the non-secret values, and which
 * secrets are set) and saves with PATCH keepSecrets, so a secret left blank
 * keeps its stored value on the server. Name and config are saved in that one
 * request: both change, or neither.
 */
export function ConnectionEdit({ connection, onSaved, onCancel }: Props) {
  const schemaKey = `/connections/types/${encodeURIComponent(connection.type)}/schema`;
  const schema = useApi(schemaKey, (signal) => get<{ type: string; schema: JsonSchema }>(schemaKey, { signal }));
  const currentKey = `/connections/${connection.id}/config/redacted`;
  const current = useApi(currentKey, (signal) => get<RedactedConfig>(currentKey, { signal }));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [connection.id]);

  return (
    <section className="panel" aria-labelledby="edit-connection-heading">
      <h2 id="edit-connection-heading" ref={heading} tabIndex={-1}>
        Edit <code>{connection.name}</code> <span className="muted">({connection.type})</span>
      </h2>
      <ErrorBox error={schema.error ?? current.error} />
      {schema.data && current.data ? (
        <EditForm key={connection.id} connection={connection} schema={schema.data.schema} current={current.data} onSaved={onSaved} onCancel={onCancel} />
      ) : (
        !schema.error && !current.error && <p className="page-status">Loading the connection…</p>
      )}
      {(schema.error !== undefined || current.error !== undefined) && (
        <div className="form-actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
    </section>
  );
}

interface FormProps extends Props {
  schema: JsonSchema;
  current: RedactedConfig;
}

function EditForm({ connection, schema, current, onSaved, onCancel }: FormProps) {
  const variants = variantsOf(schema);
  const [name, setName] = useState(connection.name);
  const [variant, setVariant] = useState(current.variant ?? variants[0] ?? '');
  const shapeOf = (v: string) => (schema.oneOf ? branchOf(schema, v) : { properties: schema.properties ?? {}, required: schema.required ?? [] });
  const [draft, setDraft] = useState<Draft>(() => toDraft(shapeOf(variant).properties, current.values));
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());
  // Free-form types (custom): every stored value is a secret, drawn as a field of its own; new ones as name=value lines.
  const [pairs, setPairs] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const freeForm = isFreeForm(schema);
  const { properties, required } = freeForm ? storedValues(current.secretsSet) : shapeOf(variant);
  // Another variant keeps no secret (the API starts it afresh): its secrets must be given.
  const secretsSet = variant === (current.variant ?? variants[0] ?? '') ? current.secretsSet : [];
  const nameProblem = problemAt(error, 'name');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const config: Record<string, unknown> = { ...toConfig(properties, draft), ...(freeForm ? parsePairs(pairs) : {}) };
      for (const field of removed) if (secretsSet.includes(field)) config[field] = null;
      if (schema.oneOf) config[discriminantOf(schema)] = variant;
      await patch(`/connections/${connection.id}`, { ...(name !== connection.name ? { name } : {}), config, keepSecrets: true });
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stacked-form" aria-label={`Edit ${connection.name}`} onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor="edit-connection-name">Name</label>
        <input
          id="edit-connection-name"
          value={name}
          required
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
          {...problemProps('edit-connection-name', nameProblem, 'edit-connection-name-help')}
        />
        <span id="edit-connection-name-help" className="help">
          Steps use it as $connections.{name || 'name'}; steps that use the old name stop finding it
        </span>
        <ProblemNote id="edit-connection-name" problem={nameProblem} />
      </div>
      {variants.length > 0 && (
        <div className="field">
          <label htmlFor="edit-connection-variant">Variant</label>
          <select id="edit-connection-variant" value={variant} onChange={(e) => setVariant(e.target.value)} aria-describedby="edit-connection-variant-help">
            {variants.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
          <span id="edit-connection-variant-help" className="help">
            Switching the variant keeps none of the stored secrets: give the new variant&apos;s own
          </span>
        </div>
      )}
      <p className="muted">Secrets are never shown here: a secret field left blank keeps its stored value.</p>
      <ConfigFields
        idPrefix="edit-config"
        properties={properties}
        required={required}
        draft={draft}
        onChange={(field, value) => setDraft((d) => ({ ...d, [field]: value }))}
        secretsSet={secretsSet}
        removed={removed}
        onRemove={(field, remove) =>
          setRemoved((r) => {
            const next = new Set(r);
            if (remove) next.add(field);
            else next.delete(field);
            return next;
          })
        }
        error={error}
      />
      {freeForm && (
        <div className="field">
          <label htmlFor="edit-connection-pairs">New values (one name=value a line)</label>
          <textarea
            id="edit-connection-pairs"
            className="mono secret-text"
            rows={3}
            value={pairs}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => setPairs(e.target.value)}
          />
        </div>
      )}
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A free-form config's stored names as fields of a form: secrets, none required (a blank one is kept, a removed one goes). */
function storedValues(names: readonly string[]): { properties: Record<string, JsonSchema>; required: string[] } {
  return { properties: Object.fromEntries(names.map((n) => [n, { type: 'string', writeOnly: true }])), required: [] };
}
