import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { useApi } from '../../ui/use-api';
import { ErrorBox } from '../../ui/error-box';
import { formatDuration } from '../../ui/format';
import { StatusBadge } from '../../ui/status-badge';
import { runAnswer, type Execution, type RunStarted } from '../runs/run-model';
import { StepValue } from '../runs/step-value';
import type { Workflow } from './workflow-model';

type Outcome = { ended: Execution } | { started: string };

/** Runs the current definition with a payload (the definition's `initial` sample to start with) and shows what it answered. */
export function TestRunTab({ workflow }: { workflow: Workflow }) {
  const { can } = useSession();
  const [payload, setPayload] = useState(() => JSON.stringify(workflow.definition.initial ?? {}, null, 2));
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const [target, setTarget] = useState<'version' | 'draft'>('version');
  const admin = can('workflows:admin');
  const draftPath = admin ? `/workflows/${workflow.id}/draft` : null;
  // Whether the caller has a draft to test: 404 is "none", not an error.
  const draft = useApi(draftPath, (signal) =>
    get<unknown>(draftPath!, { signal }).then(
      () => true,
      (err: unknown) => (err instanceof ApiError && err.status === 404 ? false : Promise.reject(err)),
    ),
  );

  if (!admin) {
    return <p className="empty-state">Test runs start the workflow: your role can view workflows and their runs, not start them.</p>;
  }

  const run = async () => {
    let initial: unknown;
    try {
      initial = JSON.parse(payload);
    } catch (err) {
      setError(new Error(`The payload is not valid JSON: ${(err as Error).message}`));
      return;
    }
    if (typeof initial !== 'object' || initial === null || Array.isArray(initial)) {
      setError(new Error('The payload must be a JSON object: it becomes the run’s `initial`.'));
      return;
    }
    setRunning(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      const path = target === 'draft' ? `/workflows/${workflow.id}/draft/test` : `/workflows/${workflow.id}/test`;
      const answer = await post<Execution | RunStarted>(path, { initial });
      setOutcome('executionId' in answer ? { started: answer.executionId } : { ended: answer });
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className="test-run">
      {draft.data ? (
        <fieldset className="test-target">
          <legend>What to run</legend>
          <label>
            <input type="radio" name="test-target" checked={target === 'version'} onChange={() => setTarget('version')} /> Version {workflow.version}, as
            published
          </label>
          <label>
            <input type="radio" name="test-target" checked={target === 'draft'} onChange={() => setTarget('draft')} /> Your draft, without publishing it
          </label>
        </fieldset>
      ) : (
        <p className="muted">Runs the current version ({workflow.version}) as a test run and waits for its outcome.</p>
      )}
      <label htmlFor="test-payload">Initial payload</label>
      <textarea id="test-payload" className="payload" rows={10} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
      <div className="test-actions">
        <button type="button" className="primary" onClick={() => void run()} disabled={running}>
          {running ? 'Running…' : 'Run test'}
        </button>
      </div>
      <ErrorBox error={error} />
      {outcome && 'started' in outcome && (
        <p role="status">
          Still running past the wait. <Link to={`/runs/${encodeURIComponent(outcome.started)}`}>Follow the run</Link>.
        </p>
      )}
      {outcome && 'ended' in outcome && <TestOutcome execution={outcome.ended} />}
    </div>
  );
}

function TestOutcome({ execution }: { execution: Execution }) {
  const answer = runAnswer(execution.steps ?? []);
  return (
    <section className="test-outcome" aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">
        Outcome <StatusBadge status={execution.status} />
      </h2>
      <p>
        {formatDuration(execution.durationMs)} · {execution.steps?.filter((s) => s.parentStepId === null).length ?? 0} steps ·{' '}
        <Link to={`/runs/${encodeURIComponent(execution.id)}`}>Open the run</Link>
      </p>
      {execution.error && (
        <div className="error-box" role="note">
          <pre>
            {execution.error.stepId ? `Step ${execution.error.stepId}: ` : ''}
            {execution.error.message}
          </pre>
        </div>
      )}
      {answer && (
        <>
          <h3>{answer.kind === 'response' ? `Response${answer.statusCode ? ` (HTTP ${answer.statusCode})` : ''}` : `Output of ${answer.stepId}`}</h3>
          <StepValue value={answer.value} omitted={answer.omitted} label="Answer of the test run" />
        </>
      )}
    </section>
  );
}
