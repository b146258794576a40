import { type Ref, useEffect, useImperativeHandle, useLayoutEffect, useRef } from 'react';
import { basicSetup, EditorView } from 'codemirror';
import { EditorState, StateEffect, StateField } from '@codemirror/state';
import { type Diagnostic, forceLinting, linter, lintGutter, openLintPanel } from '@codemirror/lint';
import { json, jsonLanguage, jsonParseLinter } from '@codemirror/lang-json';
import { hoverTooltip } from '@codemirror/view';
import { handleRefresh, jsonCompletion, jsonSchemaHover, jsonSchemaLinter, stateExtensions } from 'codemirror-json-schema';
import type { JSONSchema7 } from 'json-schema';
import type { FieldProblem } from '../../api/client';
import { locate } from './json-locations';
import { stepTypesOf, withStepTypeCompletion } from './step-type-completion';

/**
 * The definition editor: CodeMirror 6 with completion, hover and checks from
 * the definition's JSON Schema, and the API's refusals of the last save as
 * diagnostics at the fields they name. Loaded on demand (a chunk of its own).
 */

export interface EditorHandle {
  /** Moves the cursor to the field `path` names (or its nearest existing parent) and scrolls it into view. */
  jumpTo(path: string): void;
}

interface Props {
  value: string;
  onChange?(text: string): void;
  readOnly?: boolean;
  schema?: Record<string, unknown>;
  /** What the API refused at the last save: shown where each path points. */
  problems?: FieldProblem[];
  label: string;
  ref?: Ref<EditorHandle>;
  /** A field to move to once mounted (a problem chosen while another view was showing). */
  jumpOnMount?: string;
}

const setProblems = StateEffect.define<FieldProblem[]>();
const problemsField = StateField.define<FieldProblem[]>({
  create: () => [],
  update: (value, tr) => tr.effects.reduce((v, e) => (e.is(setProblems) ? e.value : v), value),
});

/** The API's problems as diagnostics, located again on each lint pass so they follow edits by path. */
function apiDiagnostics(view: EditorView): Diagnostic[] {
  const text = view.state.doc.toString();
  return view.state.field(problemsField).map((problem) => {
    const found = locate(text, problem.path);
    const message = `${problem.path}: ${problem.message}`;
    if (!found) return { from: 0, to: Math.min(1, text.length), severity: 'error', message, source: 'API' };
    const { location } = found;
    return { from: location.from, to: found.missing ? location.headTo : location.to, severity: 'error', message, source: 'API' };
  });
}

/**
 * The schema's own checks, worded for people: a value matching no alternative
 * of a `oneOf` (a step whose input does not fit its stepType) is otherwise
 * reported as "Expected one of undefined, undefined, …" (the library names
 * alternatives by titles the API's schema does not have).
 */
function schemaDiagnostics(): (view: EditorView) => Diagnostic[] {
  const check = jsonSchemaLinter();
  return (view) =>
    check(view).map((d) =>
      d.message.startsWith('Expected one of')
        ? { ...d, renderMessage: undefined, message: 'Matches none of the accepted shapes: check stepType and the fields its input needs' }
        : d,
    );
}

/** codemirror-json-schema's bundle (jsonSchema()), with the reworded schema checks. */
const jsonWithSchema = (schema: JSONSchema7) => [
  json(),
  linter(jsonParseLinter()),
  linter(schemaDiagnostics(), { needsRefresh: handleRefresh }),
  jsonLanguage.data.of({ autocomplete: withStepTypeCompletion(stepTypesOf(schema as Record<string, unknown>), jsonCompletion()) }),
  hoverTooltip(jsonSchemaHover()),
  stateExtensions(schema),
];

const theme = EditorView.theme({
  '&': { height: '34rem', border: '1px solid #8c959f', borderRadius: '6px', fontSize: '0.9rem' },
  '.cm-scroller': { overflow: 'auto', fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace" },
  '.cm-gutters': { backgroundColor: '#f6f8fa', color: '#57606a' },
  '.cm-tooltip': { maxWidth: '36rem' },
});

/** Moves the cursor to the field `path` names (or its nearest existing parent) and scrolls it into view. */
function jumpTo(editor: EditorView, path: string) {
  const found = locate(editor.state.doc.toString(), path);
  const at = found?.location.from ?? 0;
  editor.dispatch({ selection: { anchor: at, head: found ? (found.missing ? found.location.headTo : found.location.to) : at }, scrollIntoView: true });
  editor.focus();
}

export default function DefinitionEditor({ value, onChange, readOnly = false, schema, problems = [], label, ref, jumpOnMount }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  useLayoutEffect(() => {
    changed.current = onChange;
  });

  // One view per mounted editor; a new document (another version) remounts it by key.
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          jsonWithSchema((schema ?? {}) as JSONSchema7),
          problemsField,
          linter(apiDiagnostics, { needsRefresh: (u) => u.transactions.some((tr) => tr.effects.some((e) => e.is(setProblems))), delay: 100 }),
          lintGutter(),
          theme,
          EditorView.lineWrapping,
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          // tabindex: a read-only editor stays reachable by keyboard (and axe counts the scroller as keyboard-accessible).
          EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    if (jumpOnMount) jumpTo(editor, jumpOnMount);
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The document, schema and mode are read once: the parent remounts the editor (key) to replace them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch({ effects: setProblems.of(problems) });
    forceLinting(editor);
    if (problems.length > 0) openLintPanel(editor);
  }, [problems]);

  useImperativeHandle(
    ref,
    () => ({
      jumpTo(path: string) {
        if (view.current) jumpTo(view.current, path);
      },
    }),
    [],
  );

  return <div ref={host} className="definition-editor" />;
}
