import { type ReactNode, useState } from 'react';
import type { FieldProblem } from '../../../api/client';
import { type Definition, moveStep, removeStep, duplicateStep, renameStep, stepIds, valueAt } from './definition-edit';
import type { DefinitionStep, StepPath } from './definition-graph';
import { ObjectFields, resolve, type FormContext, type Schema } from './schema-form';
import { stepKind, stepLabel } from './step-catalog';
import type { Suggestion } from './template-suggestions';

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['initial', 'item', 'index', '$env', '$connections', '$resume']);

/** The input schema of a step type: its alternative of WorkflowStep in the published schema. */
export function inputSchema(definitions: Record<string, Schema>, stepType: string): Schema | undefined {
  const alternatives = definitions.WorkflowStep?.oneOf ?? [];
  const ctx = { definitions } as FormContext;
  for (const a of alternatives) {
    const alt = resolve(a, ctx);
    if (alt.properties?.stepType?.enum?.[0] === stepType) return resolve(alt.properties.input, ctx);
  }
  return undefined;
}

interface Props {
  definition: Definition;
  path: StepPath;
  definitions: Record<string, Schema>;
  suggestions: readonly Suggestion[];
  problems: readonly FieldProblem[];
  readOnly: boolean;
  onChange(definition: Definition, select?: string): void;
  onClose(): void;
  /** Below the form: testing the step, its pinned output. */
  children?: ReactNode;
}

/**
 * The selected step: its id (renaming it renames what reads it), its place
 * (up, down, duplicate, delete) and a form of its input generated from the
 * step type's schema.
 */
export function StepPanel({ definition, path, definitions, suggestions, problems, readOnly, onChange, onClose, children }: Props) {
  const step = valueAt(definition, path) as DefinitionStep;
  const [id, setId] = useState(step.stepId);
  const [note, setNote] = useState<string>();
  const [idProblem, setIdProblem] = useState<string>();
  const where = path.join('.');
  const schema = inputSchema(definitions, step.stepType);
  const ctx: FormContext = { definitions, suggestions, problems, readOnly };

  const rename = () => {
    if (id === step.stepId) return;
    const taken = stepIds(definition);
    const problem = !STEP_ID.test(id)
      ? 'must be an identifier: a letter or _, then letters, digits or _'
      : RESERVED.has(id)
        ? 'is reserved (a template root)'
        : taken.has(id)
          ? `is already the id of another step`
          : undefined;
    setIdProblem(problem);
    if (problem) return;
    const { definition: next, references } = renameStep(definition, path, id);
    setNote(`Renamed ${step.stepId} to ${id}; ${references} template${references === 1 ? '' : 's'} now read${references === 1 ? 's' : ''} ${id}.`);
    onChange(next, id);
  };

  const index = Number(path[path.length - 1]);
  const siblings = valueAt(definition, path.slice(0, -1)) as unknown[];
  const stepProblems = problems.filter((p) => p.path === where || p.path === `${where}.stepId` || p.path === `${where}.stepType`);

  return (
    <aside className="step-panel" aria-labelledby="step-panel-title">
      <div className="step-panel-head">
        <h2 id="step-panel-title">
          {stepLabel(step.stepType)} <span className="mono muted">{step.stepId}</span>
        </h2>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="muted">{stepKind(step.stepType)?.summary ?? step.stepType}</p>
      {stepProblems.map((p, i) => (
        <p key={i} className="field-problem">
          {p.message}
        </p>
      ))}
      {!readOnly && (
        <>
          <div className="step-id-row">
            <label htmlFor="step-id">Step id</label>
            <input
              id="step-id"
              className="mono"
              value={id}
              onChange={(e) => setId(e.target.value)}
              onKeyDown={(e) => e.key === 'Enter' && rename()}
              aria-invalid={idProblem ? true : undefined}
              aria-describedby={idProblem ? 'step-id-problem' : undefined}
            />
            <button type="button" onClick={rename} disabled={id === step.stepId}>
              Rename
            </button>
          </div>
          {idProblem && (
            <p id="step-id-problem" className="field-problem">
              {id} {idProblem}
            </p>
          )}
          {note && (
            <p role="status" className="muted">
              {note}
            </p>
          )}
          <div className="step-actions" role="group" aria-label="Step actions">
            <button type="button" disabled={index === 0} onClick={() => onChange(moveStep(definition, path, -1).definition, step.stepId)}>
              Move up
            </button>
            <button type="button" disabled={index >= siblings.length - 1} onClick={() => onChange(moveStep(definition, path, 1).definition, step.stepId)}>
              Move down
            </button>
            <button
              type="button"
              onClick={() => {
                const copied = duplicateStep(definition, path);
                onChange(copied.definition, copied.stepId);
              }}
            >
              Duplicate
            </button>
            <button
              type="button"
              className="danger"
              disabled={path.length === 2 && siblings.length === 1}
              title={path.length === 2 && siblings.length === 1 ? 'A workflow keeps at least one step' : undefined}
              onClick={() => onChange(removeStep(definition, path))}
            >
              Delete
            </button>
          </div>
        </>
      )}
      <form className="step-form" onSubmit={(e) => e.preventDefault()} aria-label={`Input of ${step.stepId}`}>
        <ObjectFields
          schema={{ type: 'object', properties: { name: { type: 'string', description: 'A label for people; the id stays what templates read' } } }}
          value={step as unknown as Record<string, unknown>}
          onChange={(next) => onChange(replaceStep(definition, path, next as unknown as DefinitionStep), step.stepId)}
          path={where}
          ctx={ctx}
        />
        {schema ? (
          <ObjectFields
            schema={schema}
            value={(step.input ?? {}) as Record<string, unknown>}
            onChange={(input) => onChange(replaceStep(definition, path, { ...step, input }), step.stepId)}
            path={`${where}.input`}
            ctx={ctx}
          />
        ) : Object.keys(definitions).length === 0 ? (
          <p className="page-status">Loading the form…</p>
        ) : (
          <p className="muted">No form for {step.stepType}: edit it in the JSON view.</p>
        )}
      </form>
      {children}
    </aside>
  );
}

function replaceStep(definition: Definition, path: StepPath, step: DefinitionStep): Definition {
  const next = structuredClone(definition);
  const list = valueAt(next, path.slice(0, -1)) as unknown[];
  list[Number(path[path.length - 1])] = step;
  return next;
}
