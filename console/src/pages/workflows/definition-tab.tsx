import { useMemo, useState } from 'react';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { DefinitionForm } from './definition-form';
import { StepTestPanel } from './draft/step-test-panel';
import { useDraft } from './draft/use-draft';
import { useGraphContext } from './graph/graph-context';
import type { Workflow } from './workflow-model';

/**
 * The workflow's definition. A viewer reads the current version; an editor
 * edits their own draft of it, saved on the server as they type (it survives
 * a reload and another browser), tests its steps, and publishes it as the
 * next version.
 */
export function DefinitionTab({ workflow, onSaved }: { workflow: Workflow; onSaved(): void }) {
  const { can } = useSession();
  const graph = useGraphContext(workflow);
  if (!can('workflows:admin')) {
    return (
      <DefinitionForm
        initialText={JSON.stringify(workflow.definition, null, 2)}
        readOnly
        graph={graph}
        status={<span className="muted">Read only: your role can view workflows, not change them.</span>}
      />
    );
  }
  // A new version (published here or elsewhere) starts a fresh editor on it, or on the draft still kept.
  return <DraftEditor key={workflow.version} workflow={workflow} onPublished={onSaved} graph={graph} />;
}

function DraftEditor({ workflow, onPublished, graph }: { workflow: Workflow; onPublished(): void; graph: ReturnType<typeof useGraphContext> }) {
  const d = useDraft(workflow);
  const [text, setText] = useState<string>();
  const [outdated, setOutdated] = useState<unknown>();
  const [tested, setTested] = useState<ReadonlyMap<string, { status: 'completed' | 'failed'; output: unknown; durationMs: number }>>(new Map());
  const [discarded, setDiscarded] = useState(0);

  const pins = d.draft?.pins;
  const pinned = useMemo(() => new Set(Object.keys(pins ?? {})), [pins]);
  const context = useMemo(() => {
    const outputs = new Map([...tested].filter(([, t]) => t.status === 'completed').map(([stepId, t]) => [stepId, t.output]));
    for (const [stepId, pin] of Object.entries(pins ?? {})) outputs.set(stepId, pin.output);
    return { ...graph.context, outputs };
  }, [graph.context, pins, tested]);
  const marks = useMemo(() => new Map([...tested].map(([stepId, t]) => [stepId, { status: t.status, detail: `tested · ${t.durationMs} ms` }])), [tested]);

  if (d.draft === undefined) {
    return d.loadError ? <ErrorBox error={d.loadError} /> : <p className="page-status">Loading your draft…</p>;
  }
  const initialText = JSON.stringify(d.draft ? d.draft.definition : workflow.definition, null, 2);
  const current = text ?? initialText;

  const publish = async (definition: unknown, force = false) => {
    try {
      await d.publish(definition, force);
      setOutdated(undefined);
      onPublished();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'draft_outdated') setOutdated(definition);
      throw err;
    }
  };

  const status = (
    <span className="draft-status">
      {d.draft ? (
        <>
          Your draft, from version {d.draft.baseVersion}
          {d.draft.baseVersion !== workflow.version && <strong> (version {workflow.version} was published since)</strong>}.{' '}
        </>
      ) : (
        <>Version {workflow.version}. Edits make your draft, kept as you type; Publish makes it the next version. </>
      )}
      <SaveNote state={d.save} />
      {d.draft && d.draft.others.length > 0 && (
        <span className="muted"> Also being edited by {d.draft.others.map((o) => `${o.email} (${formatTime(o.updatedAt)})`).join(', ')}.</span>
      )}
      {d.draft && (
        <button
          type="button"
          className="link-button"
          onClick={() => {
            if (!window.confirm('Discard your draft and its pinned outputs? The published version stays.')) return;
            void d.discard().then(() => {
              setText(undefined);
              setDiscarded((n) => n + 1);
            });
          }}
        >
          Discard draft
        </button>
      )}
      {outdated !== undefined && (
        <button type="button" className="danger" onClick={() => void publish(outdated, true)}>
          Publish over version {workflow.version}
        </button>
      )}
    </span>
  );

  return (
    <DefinitionForm
      key={discarded}
      initialText={initialText}
      saveLabel="Publish"
      onSave={(definition) => publish(definition)}
      onTextChange={(next) => {
        setText(next);
        d.edited(next);
      }}
      status={status}
      graph={{
        ...graph,
        context,
        pinned,
        marks,
        stepExtras: (stepId, path) => (
          <StepTestPanel
            key={stepId}
            workflowId={workflow.id}
            stepId={stepId}
            draft={d.draft}
            inLoopBody={isLoopBody(current, path)}
            test={(body) => d.testStep(stepId, body, current)}
            pin={(body) => d.pin(stepId, body)}
            unpin={() => d.unpin(stepId)}
            onTested={(result) => setTested((all) => new Map(all).set(stepId, result))}
          />
        ),
      }}
    />
  );
}

/** Whether a loop's body holds the step at `path` (`[…, <loop index>, 'input', 'steps', <index>, …]`). */
function isLoopBody(text: string, path: ReadonlyArray<string | number>): boolean {
  let at: unknown;
  try {
    at = JSON.parse(text);
  } catch {
    return false;
  }
  for (let i = 0; i < path.length - 3; i++) {
    at = (at as Record<string | number, unknown> | undefined)?.[path[i]];
    if (
      typeof path[i] === 'number' &&
      (at as { stepType?: string } | undefined)?.stepType === 'core.loop' &&
      path[i + 1] === 'input' &&
      path[i + 2] === 'steps'
    ) {
      return true;
    }
  }
  return false;
}

function SaveNote({ state }: { state: ReturnType<typeof useDraft>['save'] }) {
  switch (state.kind) {
    case 'pending':
    case 'saving':
      return <span className="muted">Saving draft… </span>;
    case 'saved':
      return (
        <span role="status" className="saved-note">
          Draft saved {formatTime(state.at)}.{' '}
        </span>
      );
    case 'unsaved':
      return <span className="field-problem">Draft not saved: {state.why}. </span>;
    default:
      return null;
  }
}
