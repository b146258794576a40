import { lazy, type ReactNode, Suspense, useRef, useState } from 'react';
import { ApiError, type FieldProblem } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useApi } from '../../ui/use-api';
import { loadDefinitionSchema } from './definition-schema';
import type { EditorHandle } from './definition-editor';

// CodeMirror is a chunk of its own: the first visit to the console does not download it.
const DefinitionEditor = lazy(() => import('./definition-editor'));

interface Props {
  initialText: string;
  readOnly?: boolean;
  /** Saves the parsed definition; an ApiError it throws is shown at the fields it names. */
  onSave?(definition: unknown): Promise<void>;
  saveLabel?: string;
  /** Above the editor, beside the save button (a version number, a note). */
  status?: ReactNode;
}

/** A definition in the editor, saved as a whole; what the API refuses is listed above and marked in the text. */
export function DefinitionForm({ initialText, readOnly = false, onSave, saveLabel = 'Save', status }: Props) {
  const schema = useApi('definition-schema', loadDefinitionSchema);
  const editor = useRef<EditorHandle>(null);
  const [text, setText] = useState(initialText);
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
                  <button type="button" className="link-button mono" onClick={() => editor.current?.jumpTo(p.path)} title="Show in the editor">
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
      {schema.data || schema.error ? (
        <Suspense fallback={<p className="page-status">Loading the editor…</p>}>
          <DefinitionEditor
            ref={editor}
            value={initialText}
            onChange={setText}
            readOnly={readOnly}
            schema={schema.data}
            problems={problems}
            label={readOnly ? 'Workflow definition (read only)' : 'Workflow definition (JSON)'}
          />
        </Suspense>
      ) : (
        <p className="page-status">Loading the editor…</p>
      )}
      {schema.error !== undefined && (
        <>
          <p className="muted">The definition's schema did not load: the editor works without completion.</p>
          <ErrorBox error={schema.error} />
        </>
      )}
    </div>
  );
}
