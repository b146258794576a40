import { useId, useState, type FormEvent } from 'react';
import { post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import type { ExecutionWait } from './run-model';

/** A field the form can offer for a schema property: a checkbox, a number, a choice or a line of text. */
interface Field {
  name: string;
  kind: 'boolean' | 'number' | 'integer' | 'string' | 'enum';
  options?: string[];
  required: boolean;
  description?: string;
}

/**
 * The fields of an object schema whose properties are all plain values; undefined when the schema asks for
 * more (nested objects, arrays, no properties), which the JSON editor answers instead.
 */
export function formFields(schema: Record<string, unknown> | null): Field[] | undefined {
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: Field[] = [];
  for (const [name, value] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    const description = typeof value.description === 'string' ? value.description : undefined;
    if (Array.isArray(value.enum) && value.enum.every((v) => typeof v === 'string')) {
      fields.push({ name, kind: 'enum', options: value.enum as string[], required: required.has(name), description });
    } else if (value.type === 'boolean' || value.type === 'number' || value.type === 'integer' || value.type === 'string') {
      fields.push({ name, kind: value.type, required: required.has(name), description });
    } else return undefined;
  }
  return fields.length ? fields : undefined;
}

/**
 * What a waiting run waits for, and for an event the form that sends it
 * (`POST /executions/{id}/events/{name}`): fields from the step's schema when
 * they are plain values, else a JSON payload. The API checks the payload
 * against the schema and names the fields it refuses.
 */
export function WaitPanel({ executionId, wait, canSend, onSent }: { executionId: string; wait: ExecutionWait; canSend: boolean; onSent(): void }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="wait-panel">
      <h2 id={headingId}>{wait.event ? `Waiting for “${wait.event}”` : 'Waiting'}</h2>
      <p className="muted">
        Step {wait.stepId} {wait.event ? 'waits for this event' : 'waits'} until {formatTime(wait.until)}
        {wait.event ? ', then times out' : ', then the run goes on'}.
      </p>
      {wait.event && canSend && <EventForm executionId={executionId} event={wait.event} schema={wait.schema} onSent={onSent} />}
      {wait.event && !canSend && <p className="muted">Sending the event needs the workflows:admin permission, or the step's resume link.</p>}
    </section>
  );
}

function EventForm({ executionId, event, schema, onSent }: { executionId: string; event: string; schema: Record<string, unknown> | null; onSent(): void }) {
  const fields = formFields(schema);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [json, setJson] = useState('{\n  \n}');
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState(false);
  const idPrefix = useId();

  const payload = (): unknown => {
    if (!fields) return JSON.parse(json);
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const value = values[field.name];
      if (field.kind === 'boolean') out[field.name] = value === true;
      else if (value === undefined || value === '') continue;
      else out[field.name] = field.kind === 'number' || field.kind === 'integer' ? Number(value) : value;
    }
    return out;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    let body: unknown;
    try {
      body = payload();
    } catch {
      setError(new Error('The payload is not valid JSON'));
      return;
    }
    setSending(true);
    try {
      await post(`/executions/${encodeURIComponent(executionId)}/events/${encodeURIComponent(event)}`, body);
      onSent();
    } catch (err) {
      setError(err);
    } finally {
      setSending(false);
    }
  };

  return (
    <form className="event-form" onSubmit={(e) => void submit(e)} aria-label={`Send event ${event}`}>
      <ErrorBox error={error} />
      {fields ? (
        fields.map((field) => {
          const id = `${idPrefix}-${field.name}`;
          const label = (
            <label htmlFor={id}>
              {field.name}
              {field.required ? '' : ' (optional)'}
            </label>
          );
          if (field.kind === 'boolean') {
            return (
              <div className="field checkbox" key={field.name}>
                <input
                  id={id}
                  type="checkbox"
                  checked={values[field.name] === true}
                  onChange={(e) => setValues({ ...values, [field.name]: e.target.checked })}
                />
                {label}
                {field.description && <p className="hint">{field.description}</p>}
              </div>
            );
          }
          return (
            <div className="field" key={field.name}>
              {label}
              {field.kind === 'enum' ? (
                <select
                  id={id}
                  value={String(values[field.name] ?? '')}
                  required={field.required}
                  onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                >
                  <option value="">Choose…</option>
                  {field.options!.map((o) => (
                    <option key={o}>{o}</option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  type={field.kind === 'string' ? 'text' : 'number'}
                  step={field.kind === 'integer' ? 1 : 'any'}
                  value={String(values[field.name] ?? '')}
                  required={field.required}
                  onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                />
              )}
              {field.description && <p className="hint">{field.description}</p>}
            </div>
          );
        })
      ) : (
        <div className="field">
          <label htmlFor={`${idPrefix}-json`}>Payload (JSON)</label>
          <textarea id={`${idPrefix}-json`} className="mono" rows={6} value={json} onChange={(e) => setJson(e.target.value)} />
        </div>
      )}
      <button type="submit" className="primary" disabled={sending}>
        {sending ? 'Sending…' : `Send ${event}`}
      </button>
    </form>
  );
}
