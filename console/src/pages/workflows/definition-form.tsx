import { lazy, type ReactNode, Suspense, useRef, useState } from 'react';
import { ApiError, type FieldProblem } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useViewParam, ViewSwitch } from '../../ui/view-switch';
import { useApi } from '../../ui/use-api';
import { loadDefinitionSchema } from './definition-schema';
import type { EditorHandle } from './definition-editor';
import type { GraphEditorProps } from './graph/graph-editor';

// CodeMirror and the graph (xyflow, dagre) are chunks of their own: the first visit to the console downloads neither.
const DefinitionEditor = lazy(() => import('./definition-editor'));
const GraphEditor = lazy(() => import('./graph/graph-editor'));

type View = 'graph' | 'json';
const DEFINITION_VIEWS = [
  { id: 'graph', label: 'Graph' },
  { id: 'json', label: 'JSON' },
] as const;

interface Props {
  initialText: string;
  readOnly?: boolean;
  /** Saves the parsed definition; an ApiError it throws is shown at the fields it names. */
  onSave?(definition: unknown): Promise<void>;
  saveLabel?: string;
  /** Above the editor, beside the save button (a version number, a note). */
  status?: ReactNode;
  /** What the graph shows and completes beside the definition: its triggers, names templates may read, pins. */
  graph?: Pick<GraphEditorProps, 'triggers' | 'context' | 'pinned' | 'marks' | 'childHref' | 'stepExtras'>;
  /** Called with the text at each change (a draft kept as you go). */
  onTextChange?(text: string): void;
}

/** A definition in the editor, saved as a whole; what the API refuses is listed above and marked in the text. */
export function DefinitionForm({ initialText, readOnly = false, onSave, saveLabel = 'Save', status, graph, onTextChange }: Props) {
  const schema = useApi('definition-schema', loadDefinitionSchema);
  const editor = useRef<EditorHandle>(null);
  const [text, setTextState] = useState(initialText);
  const [view, setView] = useViewParam<View>(['graph', 'json']);
  /** A field to show once the JSON editor has mounted (a problem chosen from the graph view). */
  const [jump, setJump] = useState<string>();
  const setText = (next: string) => {
    setTextState(next);
    onTextChange?.(next);
  };
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  const save = async () => {
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (err) {
      setError(new Error(`The definition is not valid JSON: ${(err as Error).message}`));
      return;
    }
    setSaving(true);
    setError(undefined);
    try {
      await onSave!(definition);
      setProblems([]);
    } catch (err) {
      setError(err);
      setProblems(err instanceof ApiError ? err.details : []);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="definition-form">
      <div className="definition-toolbar">
        <div>{status}</div>
        {!readOnly && onSave && (
          <button type="button" className="primary" onClick={() => void save()} disabled={saving}>
            {saving ? 'Saving…' : saveLabel}
          </button>
        )}
      </div>
      {error !== undefined && (
        <div role="alert" className="error-box">
          <p>{error instanceof Error ? error.message : String(error)}</p>
          {problems.length > 0 && (
            <ul className="problem-list" aria-label="Problems">
              {problems.map((p, i) => (
                <li key={i}>
                  <button
                    type="button"
                    className="link-button mono"
                    onClick={() => {
                      if (view === 'json') editor.current?.jumpTo(p.path);
                      else {
                        setJump(p.path);
                        setView('json');
                      }
                    }}
                    title="Show in the JSON editor"
                  >
                    {p.path}
                  </button>
                  : {p.message}
                </li>
              ))}
            </ul>
          )}
          {error instanceof ApiError && error.requestId && <p className="muted">Request {error.requestId}</p>}
        </div>
      )}
      <ViewSwitch label="Definition view" views={DEFINITION_VIEWS} view={view} onChange={setView} controls="definition-view" />
      <div id="definition-view" role="tabpanel" aria-label={view === 'graph' ? 'Graph' : 'JSON'}>
        {/* The graph draws at once (only its forms need the schema, which is large); the JSON editor is built with it. */}
        {view === 'graph' || schema.data || schema.error ? (
          <Suspense fallback={<p className="page-status">Loading the editor…</p>}>
            {view === 'graph' ? (
              <GraphEditor
                text={text}
                onChange={setText}
                readOnly={readOnly || !onSave}
                schema={schema.data}
                problems={problems}
                triggers={graph?.triggers ?? []}
                context={graph?.context}
                pinned={graph?.pinned}
                marks={graph?.marks}
                childHref={graph?.childHref}
                stepExtras={graph?.stepExtras}
              />
            ) : (
              <DefinitionEditor
                ref={editor}
                value={text}
                jumpOnMount={jump}
                onChange={setText}
                readOnly={readOnly}
                schema={schema.data}
                problems={problems}
                label={readOnly ? 'Workflow definition (read only)' : 'Workflow definition (JSON)'}
              />
            )}
          </Suspense>
        ) : (
          <p className="page-status">Loading the editor…</p>
        )}
      </div>
      {schema.error !== undefined && (
        <>
          <p className="muted">The definition's schema did not load: the editor works without completion.</p>
          <ErrorBox error={schema.error} />
        </>
      )}
    </div>
  );
}
