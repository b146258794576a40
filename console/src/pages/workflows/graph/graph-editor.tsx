import { type ReactNode, useCallback, useMemo, useState } from 'react';
import type { FieldProblem } from '../../../api/client';
import { type Definition, freeId, insertStep, stepIds } from './definition-edit';
import { definitionGraph, type GraphTrigger, type InsertionPoint, type StepPath } from './definition-graph';
import { ObjectFields, type Schema } from './schema-form';
import { StepPalette } from './step-palette';
import { StepPanel } from './step-panel';
import { templateSuggestions, type TemplateContext } from './template-suggestions';
import WorkflowGraph, { type NodeMark } from './workflow-graph';

export interface GraphEditorProps {
  /** The draft as JSON text: the graph and the JSON view edit this one text. */
  text: string;
  onChange(text: string): void;
  readOnly: boolean;
  /** The definition's JSON Schema (its components under `definitions`), for the step forms. */
  schema?: Record<string, unknown>;
  problems: readonly FieldProblem[];
  triggers: GraphTrigger[];
  context?: TemplateContext;
  pinned?: ReadonlySet<string>;
  /** What the last test of each step ended with, drawn on its node. */
  marks?: ReadonlyMap<string, NodeMark>;
  childHref?(name: string): string | undefined;
  /** Below a selected step's form: its test and pin controls. */
  stepExtras?(stepId: string, path: StepPath): ReactNode;
}

const parse = (text: string): { definition?: Definition; error?: string } => {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'The definition is not a JSON object.' };
    return { definition: value as Definition };
  } catch (err) {
    return { error: `The JSON does not parse (${(err as Error).message}): fix it in the JSON view, then come back to the graph.` };
  }
};

/** The graph view of the editor: the graph, the palette that inserts steps on its edges, and the selected step's panel. */
export default function GraphEditor({ text, onChange, readOnly, schema, problems, triggers, context, pinned, marks, childHref, stepExtras }: GraphEditorProps) {
  const { definition, error } = useMemo(() => parse(text), [text]);
  const [selected, setSelected] = useState<string>();
  const [inserting, setInserting] = useState<{ point: InsertionPoint; after: string }>();

  const paths = useMemo(() => {
    const map = new Map<string, StepPath>();
    if (definition) for (const n of definitionGraph(definition.steps, []).nodes) if (n.kind === 'step' || n.kind === 'loop') map.set(n.id, n.path);
    return map;
  }, [definition]);
  const path = selected ? paths.get(selected) : undefined;

  const write = useCallback(
    (next: Definition, select?: string) => {
      onChange(JSON.stringify(next, null, 2));
      setSelected(select);
    },
    [onChange],
  );
  const onInsert = useCallback((point: InsertionPoint, after: string) => setInserting({ point, after }), []);
  const suggestions = useMemo(() => (definition && path ? templateSuggestions(definition, path, context) : []), [definition, path, context]);
  // Problems the API named at a step that is not selected show on the graph's list, so none is hidden.
  const elsewhere = problems.filter((p) => !path || !p.path.startsWith(path.join('.')));

  if (!definition) {
    return (
      <p role="alert" className="error-box">
        {error}
      </p>
    );
  }
  const definitions = ((schema?.definitions as Record<string, Schema> | undefined) ?? {}) as Record<string, Schema>;
  const top = schema?.properties as Record<string, Schema> | undefined;
  return (
    <div className={`graph-editor ${path ? 'has-panel' : ''}`}>
      <div className="graph-column">
        {top && (
          <details className="workflow-fields" open={!readOnly && !path}>
            <summary>Name, description and sample input</summary>
            <ObjectFields
              // The steps are the graph; settings are the Settings tab's.
              schema={{
                type: 'object',
                properties: Object.fromEntries(Object.entries(top).filter(([k]) => k !== 'steps' && k !== 'settings')),
                required: ['name'],
              }}
              value={definition}
              onChange={(next) => write(next as Definition, selected)}
              path=""
              ctx={{ definitions, suggestions: [], problems: problems.map((p) => ({ ...p, path: `.${p.path}` })), readOnly }}
            />
          </details>
        )}
        {elsewhere.length > 0 && (
          <ul className="problem-list" aria-label="Problems on the graph">
            {elsewhere.map((p, i) => {
              const owner = [...paths].find(([, at]) => p.path === at.join('.') || p.path.startsWith(`${at.join('.')}.`));
              return (
                <li key={i}>
                  {owner ? (
                    <button type="button" className="link-button mono" onClick={() => setSelected(owner[0])}>
                      {owner[0]}
                    </button>
                  ) : (
                    <span className="mono">{p.path}</span>
                  )}
                  : {p.message}
                </li>
              );
            })}
          </ul>
        )}
        <WorkflowGraph
          steps={definition.steps}
          triggers={triggers}
          label={readOnly ? 'Workflow graph (read only)' : 'Workflow graph: Tab to a step and press Enter to open it; the + buttons add a step'}
          selected={selected}
          onSelect={setSelected}
          onInsert={readOnly ? undefined : onInsert}
          pinned={pinned}
          marks={marks}
          childHref={childHref}
        />
      </div>
      {path && selected && (
        <StepPanel
          // By place, not id: a rename keeps the panel (and its note); another step gets a fresh one.
          key={path.join('.')}
          definition={definition}
          path={path}
          definitions={definitions}
          suggestions={suggestions}
          problems={problems}
          readOnly={readOnly}
          onChange={write}
          onClose={() => setSelected(undefined)}
        >
          {stepExtras?.(selected, path)}
        </StepPanel>
      )}
      {inserting && (
        <StepPalette
          point={inserting.point}
          after={inserting.after}
          onClose={() => setInserting(undefined)}
          onPick={(kind) => {
            const id = freeId(stepIds(definition), kind.idBase);
            const taken = stepIds(definition).add(id);
            const input = kind.input() as { steps?: Array<{ stepId: string }> };
            // A starting loop body's step needs an id of its own too.
            input.steps?.forEach((s) => (s.stepId = freeId(taken, s.stepId)));
            setInserting(undefined);
            write(insertStep(definition, inserting.point, { stepId: id, stepType: kind.type, input }), id);
          }}
        />
      )}
    </div>
  );
}
