import { lazy, Suspense, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatDuration, formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import { Page } from '../../ui/page';
import { StatusBadge } from '../../ui/status-badge';
import { useApi, usePolling } from '../../ui/use-api';
import { useViewParam, ViewSwitch } from '../../ui/view-switch';
import { branchParents, isFinished, replayableSteps, runAnswer, runUsageText, stepTree, type Execution, type RunStarted } from './run-model';
import type { WorkflowVersion } from '../workflows/workflow-model';
import { ReplayForm } from './replay-form';
import { StepTimeline } from './step-timeline';
import { StepValue } from './step-value';
import { WaitPanel } from './event-form';

// The graph (xyflow, dagre) is a chunk of its own, shared with the workflow editor: the timeline does not wait for it.
const RunGraph = lazy(() => import('./run-graph'));

const STEPS_VIEWS = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'graph', label: 'Graph' },
] as const;

/** One run: what started it, how it went, each step on a timeline with its values, its answer; rerun and cancel for admins. */
export function RunPage() {
  const { id = '' } = useParams();
  const path = `/executions/${encodeURIComponent(id)}`;
  const run = useApi(path, (signal) => get<Execution>(path, { signal }));
  const running = run.data !== undefined && !isFinished(run.data.status);
  usePolling(run.reload, 2000, running && !run.loading);

  // The previous run stays in `data` while another loads (after a rerun): never show one run under another's address.
  if (!run.data || run.data.id !== id) {
    return (
      <Page title="Run">
        {run.error && !run.loading ? <ErrorBox error={run.error} /> : <p className="page-status">Loading run…</p>}
        <p>
          <Link to="/runs">All runs</Link>
        </p>
      </Page>
    );
  }
  return <RunView execution={run.data} reload={run.reload} error={run.error} />;
}

function RunView({ execution, reload, error }: { execution: Execution; reload(): void; error: unknown }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState<'rerun' | 'cancel' | undefined>();
  // Cancelling stops a run for good: the button asks first, in a prompt that takes its place.
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const cancellable = can('workflows:admin') && !isFinished(execution.status);
  const steps = execution.steps ?? [];
  const started = Date.parse(execution.startedAt);
  const ended = execution.finishedAt ? Date.parse(execution.finishedAt) : Math.max(started, ...steps.map((s) => Date.parse(s.finishedAt)));
  const span = { start: started, total: Math.max(1, ended - started) };
  // A failed run's last completed step is not its answer; a return step's response is, whatever came after.
  const found = runAnswer(steps);
  const answer = found && (found.kind === 'response' || execution.status === 'completed') ? found : undefined;
  const temporalUrl = execution.temporal?.url;
  // Replay from a step: for admins, once the run has ended; the chosen step lives in the URL (?replay=<stepId>).
  const canReplay = can('workflows:admin') && isFinished(execution.status);
  const replayIds = new Set(replayableSteps(steps).map((s) => s.stepId));
  const replayFrom = params.get('replay') ?? '';
  const [view, setView] = useViewParam(['timeline', 'graph'] as const);
  // The version's definition says which steps a branch holds, so the timeline nests them; without it, they stay flat.
  const versionPath = `/workflows/${execution.workflowId}/versions/${execution.workflowVersion}`;
  const version = useApi(versionPath, (signal) => get<WorkflowVersion>(versionPath, { signal }));
  const branches = useMemo(() => (version.data ? branchParents(version.data.definition.steps) : undefined), [version.data]);
  /** "Replay from here" keeps the view the person is in. */
  const replayLink = (stepId: string) => {
    const next = new URLSearchParams(params);
    next.set('replay', stepId);
    return `?${next.toString()}`;
  };
  const closeReplay = () =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      next.delete('replay');
      return next;
    });

  const act = async (what: 'rerun' | 'cancel') => {
    setBusy(what);
    setActionError(undefined);
    try {
      if (what === 'rerun') {
        const started = await post<RunStarted>(`/executions/${encodeURIComponent(execution.id)}/rerun`, {});
        navigate(`/runs/${encodeURIComponent(started.executionId)}`);
      } else {
        await post(`/executions/${encodeURIComponent(execution.id)}/cancel`, {});
        setConfirmingCancel(false);
        reload();
      }
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(undefined);
    }
  };

  const actions = (
    <>
      {temporalUrl && (
        <a className="button" href={temporalUrl} target="_blank" rel="noreferrer">
          Open in Temporal
        </a>
      )}
      {cancellable && !confirmingCancel && (
        <button type="button" className="danger" ref={cancelButton} disabled={busy !== undefined} onClick={() => setConfirmingCancel(true)}>
          Cancel run
        </button>
      )}
      {can('workflows:admin') && (
        <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void act('rerun')}>
          {busy === 'rerun' ? 'Starting…' : 'Rerun'}
        </button>
      )}
    </>
  );

  return (
    <Page
      title={`Run of ${execution.workflowName}`}
      subtitle={
        <>
          <Link to="/runs">Runs</Link> / <span className="mono">{execution.id}</span>
        </>
      }
      actions={actions}
    >
      {cancellable && confirmingCancel && (
        <div className="cancel-prompt" role="group" aria-label="Cancel the run?">
          <ConfirmPrompt
            question="Cancel this run? The step it is on is stopped and the steps after it never run; a rerun starts it again from the beginning."
            confirmLabel={busy === 'cancel' ? 'Cancelling…' : 'Cancel run'}
            cancelLabel="Keep it running"
            autoFocus
            busy={busy !== undefined}
            onConfirm={() => void act('cancel')}
            onCancel={() => {
              setConfirmingCancel(false);
              // The button comes back: focus returns to it, not to the top of the page.
              requestAnimationFrame(() => cancelButton.current?.focus());
            }}
          />
        </div>
      )}
      <ErrorBox error={actionError ?? error} />
      {execution.replayOf && (
        <p className="notice replay-of">
          Replay of <Link to={`/runs/${encodeURIComponent(execution.replayOf)}`}>run {execution.replayOf}</Link>
          {execution.replayFromStepId && (
            <>
              {' '}
              from step <strong>{execution.replayFromStepId}</strong>
            </>
          )}
          <span className="muted">: the steps before it reused the original's outputs</span>
        </p>
      )}
      <dl className="run-facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={execution.status} />
          </dd>
        </div>
        <div>
          <dt>Workflow</dt>
          <dd>
            <Link to={`/workflows/${execution.workflowId}`}>{execution.workflowName}</Link> <span className="muted">version {execution.workflowVersion}</span>
          </dd>
        </div>
        <div>
          <dt>Mode</dt>
          <dd>{execution.mode}</dd>
        </div>
        <div>
          <dt>Trigger</dt>
          <dd>{execution.trigger?.name ?? '—'}</dd>
        </div>
        {execution.deliveryId && (
          <div>
            <dt>Delivery id</dt>
            <dd>
              <code className="delivery-id">{execution.deliveryId}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Started</dt>
          <dd>{formatTime(execution.startedAt)}</dd>
        </div>
        <div>
          <dt>Ended</dt>
          <dd>{execution.finishedAt ? formatTime(execution.finishedAt) : execution.status === 'waiting' ? 'waiting' : 'still running'}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(execution.durationMs)}</dd>
        </div>
        {execution.usage && (
          <div>
            <dt>LLM usage</dt>
            <dd>{runUsageText(execution.usage)}</dd>
          </div>
        )}
        {execution.rerunOf && (
          <div>
            <dt>Rerun of</dt>
            <dd>
              <Link to={`/runs/${encodeURIComponent(execution.rerunOf)}`}>earlier run</Link>
            </dd>
          </div>
        )}
      </dl>

      {execution.error && (
        <div className="error-box run-error" role="note" aria-label="Run error">
          <p>
            <strong>Failed{execution.error.stepId ? ` at step ${execution.error.stepId}` : ''}:</strong>
          </p>
          <pre>{execution.error.message}</pre>
        </div>
      )}

      {execution.waiting?.map((wait) => (
        <WaitPanel key={wait.stepId} executionId={execution.id} wait={wait} canSend={can('workflows:admin')} onSent={reload} />
      ))}

      {answer && (
        <section aria-labelledby="answer-heading" className="run-answer">
          <h2 id="answer-heading">{answer.kind === 'response' ? 'Response' : 'Final output'}</h2>
          <p className="muted">
            {answer.kind === 'response'
              ? `Answered by step ${answer.stepId}${answer.statusCode ? ` with HTTP ${answer.statusCode}` : ''}`
              : `Output of the last step, ${answer.stepId}`}
          </p>
          <StepValue value={answer.value} omitted={answer.omitted} label="Answer of the run" />
        </section>
      )}

      {canReplay && replayIds.has(replayFrom) && (
        <section aria-labelledby="replay-heading" className="replay-panel">
          <h2 id="replay-heading">Replay from step {replayFrom}</h2>
          <ReplayForm
            key={replayFrom}
            executionId={execution.id}
            steps={steps}
            fromStepId={replayFrom}
            onStarted={(newId) => navigate(`/runs/${encodeURIComponent(newId)}`)}
            onCancel={closeReplay}
          />
        </section>
      )}

      <section aria-labelledby="steps-heading">
        <div className="steps-head">
          <h2 id="steps-heading">Steps</h2>
          <ViewSwitch label="Steps view" views={STEPS_VIEWS} view={view} onChange={setView} controls="steps-view" />
        </div>
        <div id="steps-view" role="tabpanel" aria-label={view === 'graph' ? 'Graph' : 'Timeline'}>
          {view === 'graph' ? (
            <Suspense fallback={<p className="page-status">Loading the graph…</p>}>
              <RunGraph execution={execution} version={version} replayLink={canReplay ? replayLink : undefined} />
            </Suspense>
          ) : steps.length === 0 ? (
            <p className="empty-state">{execution.status === 'running' ? 'No step has finished yet.' : 'This run recorded no steps.'}</p>
          ) : (
            <>
              <div className="timeline-scale muted" aria-hidden="true">
                <span className="timeline-scale-axis">
                  <span>0</span>
                  <span>{formatDuration(span.total)}</span>
                </span>
              </div>
              <StepTimeline nodes={stepTree(steps, branches)} span={span} replayLink={canReplay ? replayLink : undefined} waiting={execution.waiting ?? []} />
            </>
          )}
        </div>
        {!isFinished(execution.status) && <p className="muted">Refreshing while the run goes on…</p>}
      </section>

      <section aria-labelledby="input-heading">
        <h2 id="input-heading">Input</h2>
        <JsonView value={execution.input} label="Run input" />
      </section>
    </Page>
  );
}
