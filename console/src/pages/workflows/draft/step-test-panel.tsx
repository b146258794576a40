import { useState } from 'react';
import { Link } from 'react-router';
import { get, withQuery } from '../../../api/client';
import { ErrorBox } from '../../../ui/error-box';
import { formatTime } from '../../../ui/format';
import { StatusBadge } from '../../../ui/status-badge';
import { useApi } from '../../../ui/use-api';
import type { ExecutionList } from '../../runs/run-model';
import { StepValue } from '../../runs/step-value';
import type { Draft, StepTest } from './use-draft';

interface Props {
  workflowId: string;
  stepId: string;
  draft: Draft | null | undefined;
  /** Whether a loop body holds the step: it is tested with its loop. */
  inLoopBody: boolean;
  test(body: { executionId?: string; initial?: Record<string, unknown> }): Promise<StepTest>;
  pin(body: { executionId: string } | { output: unknown }): Promise<void>;
  unpin(): Promise<void>;
  /** The step was tested: its node shows how it went, and later steps complete the fields of its output. */
  onTested(result: { status: 'completed' | 'failed'; output: unknown; durationMs: number }): void;
}

/**
 * Testing one step of the draft: the steps before it take their pinned
 * outputs (or a chosen run's), the step runs through Temporal, and its output
 * shows here, ready to pin so the next steps test without calling it again.
 */
export function StepTestPanel({ workflowId, stepId, draft, inLoopBody, test, pin, unpin, onTested }: Props) {
  const runsPath = withQuery('/executions', { workflowId, limit: 20 });
  const runs = useApi(runsPath, (signal) => get<ExecutionList>(runsPath, { signal }));
  const [source, setSource] = useState('');
  const [initial, setInitial] = useState('');
  const [result, setResult] = useState<StepTest>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const pinned = draft && Object.hasOwn(draft.pins, stepId) ? draft.pins[stepId] : undefined;

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const run = () =>
    act(async () => {
      let given: Record<string, unknown> | undefined;
      if (initial.trim()) {
        const parsed: unknown = JSON.parse(initial);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The sample input must be a JSON object: it becomes `initial`.');
        given = parsed as Record<string, unknown>;
      }
      const answer = await test({ ...(source ? { executionId: source } : {}), ...(given ? { initial: given } : {}) });
      setResult(answer);
      const record = 'steps' in answer ? answer.steps?.find((s) => s.stepId === stepId) : undefined;
      if (record) onTested({ status: record.status, output: record.output, durationMs: record.durationMs });
    });

  if (inLoopBody) return <p className="muted step-test">A step in a loop body runs once per item: test its loop step, whose items it reads.</p>;
  const record = result && 'steps' in result ? result.steps?.find((s) => s.stepId === stepId) : undefined;
  return (
    <section className="step-test" aria-labelledby="step-test-title">
      <h3 id="step-test-title">Test this step</h3>
      <p className="muted">Runs this step alone through Temporal, as a run would (timeouts, address checks, secrets masked), and records it as a test.</p>
      <label htmlFor="step-test-source">Earlier steps' outputs</label>
      <select id="step-test-source" value={source} onChange={(e) => setSource(e.target.value)}>
        <option value="">Pinned outputs only</option>
        {(runs.data?.data ?? []).map((r) => (
          <option key={r.id} value={r.id}>
            From run {r.id.slice(0, 8)}… ({r.mode}, {r.status}, {formatTime(r.startedAt)}); pins win
          </option>
        ))}
      </select>
      <label htmlFor="step-test-initial">Sample input (initial), optional</label>
      <textarea
        id="step-test-initial"
        className="mono"
        rows={3}
        placeholder="The chosen run's input, else the draft's sample"
        value={initial}
        onChange={(e) => setInitial(e.target.value)}
      />
      <div className="step-test-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void run()}>
          {busy ? 'Testing…' : `Test ${stepId}`}
        </button>
        {source && (
          <button type="button" disabled={busy} onClick={() => void act(() => pin({ executionId: source }))}>
            Pin its output from this run
          </button>
        )}
      </div>
      <ErrorBox error={error} />
      {result && 'executionId' in result && (
        <p role="status">
          Still running: <Link to={`/runs/${encodeURIComponent(result.executionId)}`}>follow the test</Link>.
        </p>
      )}
      {result && result.missing.length > 0 && (
        <p className="field-problem" role="note">
          No output for {result.missing.join(', ')}: what reads {result.missing.length === 1 ? 'it' : 'them'} rendered as if{' '}
          {result.missing.length === 1 ? 'it' : 'they'} had not run. Pin {result.missing.length === 1 ? 'its output' : 'their outputs'}, or test from a run.
        </p>
      )}
      {record && 'id' in result! && (
        <div className="step-test-result" role="status" aria-live="polite">
          <p>
            <StatusBadge status={record.status} /> in {record.durationMs} ms · <Link to={`/runs/${encodeURIComponent(result.id)}`}>open the test run</Link>
          </p>
          {record.error && <pre className="error-box">{record.error}</pre>}
          <StepValue value={record.output} omitted={record.omitted?.output} label={`Tested output of ${stepId}`} />
          {record.status === 'completed' && (
            <button type="button" disabled={busy} onClick={() => void act(() => pin({ executionId: result.id }))}>
              Pin this output
            </button>
          )}
        </div>
      )}
      {pinned && (
        <div className="step-pinned">
          <h4>Pinned output</h4>
          <p className="muted">
            {'executionId' in pinned.from ? `From run ${pinned.from.executionId.slice(0, 8)}…` : 'Given'}, {formatTime(pinned.pinnedAt)}. Step tests after this
            one take it; runs of a published version never do.
          </p>
          <StepValue value={pinned.output} label={`Pinned output of ${stepId}`} />
          <button type="button" disabled={busy} onClick={() => void act(unpin)}>
            Unpin
          </button>
        </div>
      )}
    </section>
  );
}
