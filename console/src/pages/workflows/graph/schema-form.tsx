import { useState } from 'react';
import type { FieldProblem } from '../../../api/client';
import { TemplateInput } from './template-input';
import type { Suggestion } from './template-suggestions';

/**
 * A form drawn from a JSON Schema: the schema `/openapi.json` publishes for a
 * step type's input. Required fields come first; an enum is a choice; nested
 * objects are fieldsets; maps and arrays have rows to add and remove; a value
 * the form cannot draw (a union such as "an array or a template") is edited
 * as JSON in place. Strings are template fields that complete what the step
 * can read. Each field shows the API's message about it.
 */

export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
};

export interface FormContext {
  definitions: Record<string, Schema>;
  suggestions: readonly Suggestion[];
  problems: readonly FieldProblem[];
  readOnly: boolean;
}

const REF = '#/definitions/';

export function resolve(schema: Schema | undefined, ctx: FormContext): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string' && s.$ref.startsWith(REF); i++) s = ctx.definitions[s.$ref.slice(REF.length)] ?? {};
  return s;
}

/** Steps inside a step (branches, a loop's body, a timeout path): edited on the graph, not in the form. */
const holdsSteps = (schema: Schema, ctx: FormContext) => schema.type === 'array' && resolve(schema.items, ctx) === ctx.definitions.WorkflowStep;

const typeOf = (schema: Schema) => (Array.isArray(schema.type) ? undefined : schema.type);

/** The property all alternatives set to one value of their own (a tool's `type`): the union is then a choice of that value. */
function discriminator(alternatives: Schema[]): string | undefined {
  const first = alternatives[0]?.properties ?? {};
  return Object.keys(first).find((key) => alternatives.every((a) => a.properties?.[key]?.enum?.length === 1));
}

const problemFor = (ctx: FormContext, path: string) => ctx.problems.find((p) => p.path === path || p.path.startsWith(`${path}.`));
const fieldId = (path: string) => `field-${path.replace(/[^\w-]/g, '_')}`;

function Problem({ id, problem }: { id: string; problem?: FieldProblem }) {
  return problem ? (
    <p id={`${id}-problem`} className="field-problem">
      {problem.path.split('.').slice(-1)[0]}: {problem.message}
    </p>
  ) : null;
}

/** An object's properties, required first, each with its label, hint and problem. */
export function ObjectFields({
  schema,
  value,
  onChange,
  path,
  ctx,
}: {
  schema: Schema;
  value: Record<string, unknown>;
  onChange(next: Record<string, unknown>): void;
  path: string;
  ctx: FormContext;
}) {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const keys = [...Object.keys(properties).filter((k) => required.has(k)), ...Object.keys(properties).filter((k) => !required.has(k))];
  const set = (key: string, next: unknown) => {
    // Key order as written is kept: a new key goes last, a changed one stays where it was.
    const out = { ...value };
    if (next === undefined) delete out[key];
    else out[key] = next;
    onChange(out);
  };
  return (
    <div className="schema-fields">
      {keys.map((key) => {
        const property = resolve(properties[key], ctx);
        const at = `${path}.${key}`;
        const id = fieldId(at);
        const problem = problemFor(ctx, at);
        if (holdsSteps(property, ctx) || (property.anyOf ?? property.oneOf)?.some((a) => holdsSteps(resolve(a, ctx), ctx))) {
          const count = Array.isArray(value[key]) ? (value[key] as unknown[]).length : 0;
          return (
            <p key={key} className="muted schema-steps">
              <span className="mono">{key}</span>:{' '}
              {Array.isArray(value[key]) ? `${count} step${count === 1 ? '' : 's'}, edited on the graph` : JSON.stringify(value[key] ?? null)}
            </p>
          );
        }
        const present = value[key] !== undefined;
        return (
          <div key={key} className={`schema-field ${required.has(key) ? 'is-required' : ''}`}>
            <div className="schema-label">
              <label htmlFor={id}>
                <span className="mono">{key}</span>
                {required.has(key) ? <span className="required-mark"> (required)</span> : null}
              </label>
              {!required.has(key) && present && !ctx.readOnly && (
                <button type="button" className="link-button" onClick={() => set(key, undefined)} aria-label={`Remove ${key}`}>
                  remove
                </button>
              )}
            </div>
            {property.description && (
              <p className="schema-hint" id={`${id}-hint`}>
                {property.description}
              </p>
            )}
            {!present && !required.has(key) ? (
              ctx.readOnly ? (
                <p className="muted">not set{property.default !== undefined ? ` (default ${JSON.stringify(property.default)})` : ''}</p>
              ) : (
                <button type="button" id={id} className="schema-add" onClick={() => set(key, emptyValue(property, ctx))}>
                  Set {key}
                  {property.default !== undefined ? ` (default ${JSON.stringify(property.default)})` : ''}
                </button>
              )
            ) : (
              <ValueField schema={property} value={value[key]} onChange={(v) => set(key, v)} path={at} id={id} ctx={ctx} problem={problem} />
            )}
            <Problem id={id} problem={problem} />
          </div>
        );
      })}
    </div>
  );
}

/** A value to start a field with: its default, or the emptiest value of its type. */
function emptyValue(schema: Schema, ctx: FormContext): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'object':
      return {};
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
  }
  const alternatives = (schema.oneOf ?? schema.anyOf)?.map((a) => resolve(a, ctx));
  return alternatives ? emptyValue(alternatives[0], ctx) : '';
}

function ValueField({
  schema,
  value,
  onChange,
  path,
  id,
  ctx,
  problem,
  label,
}: {
  schema: Schema;
  value: unknown;
  onChange(next: unknown): void;
  path: string;
  id: string;
  ctx: FormContext;
  problem?: FieldProblem;
  /** The field's name for assistive technology where no <label> names it (a map's value, an array's item). */
  label?: string;
}) {
  const describedBy = [problem ? `${id}-problem` : '', schema.description ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  const aria = { 'aria-describedby': describedBy, 'aria-invalid': problem ? true : undefined, 'aria-label': label };
  const type = typeOf(schema);

  if (schema.enum && schema.enum.every((e) => typeof e === 'string')) {
    const choices = schema.enum as string[];
    return (
      <select id={id} value={String(value ?? '')} disabled={ctx.readOnly} onChange={(e) => onChange(e.target.value)} {...aria}>
        {!choices.includes(String(value)) && <option value={String(value ?? '')}>{String(value ?? '')}</option>}
        {choices.map((e) => (
          <option key={e} value={e}>
            {e}
          </option>
        ))}
      </select>
    );
  }
  // A string where any JSON may go (a set value, a body) is a template: edited as text, not as a JSON string literal.
  if (
    (type === 'string' && (typeof value === 'string' || value === undefined)) ||
    (type === undefined && !schema.oneOf && !schema.anyOf && typeof value === 'string')
  ) {
    return (
      <TemplateInput
        id={id}
        label={label}
        value={(value as string | undefined) ?? ''}
        onChange={onChange}
        suggestions={ctx.suggestions}
        multiline={/prompt|body|description/i.test(path.split('.').pop() ?? '') || (schema.maxLength ?? 0) > 500}
        readOnly={ctx.readOnly}
        describedBy={describedBy}
        invalid={Boolean(problem)}
      />
    );
  }
  if ((type === 'integer' || type === 'number') && (typeof value === 'number' || value === undefined)) {
    return (
      <input
        id={id}
        type="number"
        value={value === undefined ? '' : String(value)}
        min={schema.minimum}
        max={schema.maximum}
        step={type === 'integer' ? 1 : 'any'}
        readOnly={ctx.readOnly}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        {...aria}
      />
    );
  }
  if (type === 'boolean' && typeof value === 'boolean') {
    return <input id={id} type="checkbox" checked={value} disabled={ctx.readOnly} onChange={(e) => onChange(e.target.checked)} {...aria} />;
  }
  if (type === 'object' && schema.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    return (
      <fieldset id={id} className="schema-object" {...aria}>
        <ObjectFields schema={schema} value={value as Record<string, unknown>} onChange={onChange} path={path} ctx={ctx} />
      </fieldset>
    );
  }
  if (
    type === 'object' &&
    !schema.properties &&
    typeof schema.additionalProperties === 'object' &&
    value &&
    typeof value === 'object' &&
    !Array.isArray(value)
  ) {
    return (
      <MapField schema={resolve(schema.additionalProperties, ctx)} value={value as Record<string, unknown>} onChange={onChange} path={path} id={id} ctx={ctx} />
    );
  }
  if (type === 'array' && Array.isArray(value)) {
    return <ArrayField schema={resolve(schema.items, ctx)} value={value} onChange={onChange} path={path} id={id} ctx={ctx} />;
  }
  const alternatives = (schema.oneOf ?? schema.anyOf)?.map((a) => resolve(a, ctx));
  const key = alternatives && discriminator(alternatives);
  if (alternatives && key && value && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const chosen = alternatives.find((a) => a.properties![key].enum![0] === record[key]) ?? alternatives[0];
    return (
      <fieldset id={id} className="schema-object" {...aria}>
        <ObjectFields
          schema={chosen}
          value={record}
          onChange={(next) => {
            // Another kind starts from that kind's required fields.
            if (next[key] !== record[key]) {
              const other = alternatives.find((a) => a.properties![key].enum![0] === next[key])!;
              onChange({ ...Object.fromEntries((other.required ?? []).map((k) => [k, emptyValue(resolve(other.properties![k], ctx), ctx)])), ...next });
            } else onChange(next);
          }}
          path={path}
          ctx={ctx}
        />
      </fieldset>
    );
  }
  return <JsonField id={id} value={value} onChange={onChange} readOnly={ctx.readOnly} describedBy={describedBy} label={label} />;
}

/** Name → value rows (headers, query parameters, set values, an output schema). */
function MapField({
  schema,
  value,
  onChange,
  path,
  id,
  ctx,
}: {
  schema: Schema;
  value: Record<string, unknown>;
  onChange(next: unknown): void;
  path: string;
  id: string;
  ctx: FormContext;
}) {
  const [name, setName] = useState('');
  const entries = Object.entries(value);
  const rename = (from: string, to: string) => onChange(Object.fromEntries(entries.map(([k, v]) => [k === from ? to : k, v])));
  return (
    <div id={id} className="schema-map" role="group" aria-label={path.split('.').pop()}>
      {entries.map(([k, v], i) => (
        <div key={i} className="schema-map-row">
          <input aria-label={`Name ${i + 1}`} className="mono" value={k} readOnly={ctx.readOnly} onChange={(e) => rename(k, e.target.value)} />
          <ValueField
            schema={schema}
            value={v}
            onChange={(next) => onChange({ ...value, [k]: next })}
            path={`${path}.${k}`}
            id={`${id}-${i}`}
            ctx={ctx}
            problem={problemFor(ctx, `${path}.${k}`)}
            label={`Value of ${k}`}
          />
          {!ctx.readOnly && (
            <button
              type="button"
              className="link-button"
              aria-label={`Remove ${k}`}
              onClick={() => onChange(Object.fromEntries(entries.filter(([x]) => x !== k)))}
            >
              remove
            </button>
          )}
        </div>
      ))}
      {!ctx.readOnly && (
        <div className="schema-map-row">
          <input aria-label="New name" className="mono" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} />
          <button
            type="button"
            disabled={!name || name in value}
            onClick={() => {
              onChange({ ...value, [name]: emptyValue(schema, ctx) });
              setName('');
            }}
          >
            Add
          </button>
        </div>
      )}
    </div>
  );
}

function ArrayField({
  schema,
  value,
  onChange,
  path,
  id,
  ctx,
}: {
  schema: Schema;
  value: unknown[];
  onChange(next: unknown): void;
  path: string;
  id: string;
  ctx: FormContext;
}) {
  return (
    <div id={id} className="schema-array" role="group" aria-label={path.split('.').pop()}>
      {value.map((item, i) => (
        <div key={i} className="schema-array-item">
          <ValueField
            schema={schema}
            value={item}
            onChange={(next) => onChange(value.map((x, j) => (j === i ? next : x)))}
            path={`${path}.${i}`}
            id={`${id}-${i}`}
            ctx={ctx}
            problem={problemFor(ctx, `${path}.${i}`)}
            label={`Item ${i + 1} of ${path.split('.').pop()}`}
          />
          {!ctx.readOnly && (
            <button type="button" className="link-button" aria-label={`Remove item ${i + 1}`} onClick={() => onChange(value.filter((_, j) => j !== i))}>
              remove
            </button>
          )}
        </div>
      ))}
      {!ctx.readOnly && (
        <button type="button" onClick={() => onChange([...value, emptyValue(schema, ctx)])}>
          Add an item
        </button>
      )}
    </div>
  );
}

/** A value as JSON text, applied when it parses (on leaving the field); until then the text is kept and marked. */
function JsonField({
  id,
  value,
  onChange,
  readOnly,
  describedBy,
  label,
}: {
  id: string;
  value: unknown;
  onChange(next: unknown): void;
  readOnly: boolean;
  describedBy?: string;
  label?: string;
}) {
  const written = JSON.stringify(value ?? null, null, 2);
  const [text, setText] = useState(written);
  const [invalid, setInvalid] = useState<string | undefined>();
  return (
    <>
      <textarea
        id={id}
        className="mono schema-json"
        rows={Math.min(10, text.split('\n').length + 1)}
        value={text}
        readOnly={readOnly}
        aria-label={label}
        aria-describedby={[describedBy, invalid ? `${id}-json` : ''].filter(Boolean).join(' ') || undefined}
        aria-invalid={invalid ? true : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          try {
            onChange(JSON.parse(text));
            setInvalid(undefined);
          } catch (err) {
            setInvalid((err as Error).message);
          }
        }}
      />
      {invalid && (
        <p id={`${id}-json`} className="field-problem">
          Not JSON yet ({invalid}): the field keeps its last valid value.
        </p>
      )}
    </>
  );
}
