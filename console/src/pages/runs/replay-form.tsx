import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { stepsBefore, type ExecutionStep, type ReplayStarted } from './run-model';

const asText = (value: unknown) => JSON.stringify(value ?? null, null, 2);

interface Props {
  executionId: string;
  steps: ExecutionStep[];
  fromStepId: string;
  /** The replay started: its execution id. */
  onStarted(executionId: string): void;
  onCancel(): void;
}

/**
 * Replay a run from one of its steps (`POST /executions/{id}/replay`): the version to run, and the outputs of
 * earlier steps to use instead of the recorded ones. Each editor starts from the recorded output; only the
 * ones changed are sent. The API's field messages show in the error box and beside the output they name.
 */
export function ReplayForm({ executionId, steps, fromStepId, onStarted, onCancel }: Props) {
  const earlier = stepsBefore(steps, fromStepId);
  // Values too large to inline (`omitted`) are not offered for editing: they are reused as recorded.
  const editable = earlier.filter((s) => !s.omitted?.output);
  const [version, setVersion] = useState<'original' | 'current'>('original');
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(editable.map((s) => [s.stepId, asText(s.output)])));
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState(false);
  const idPrefix = useId();
  const formRef = useRef<HTMLFormElement>(null);
  // Opened from a step far down the timeline: bring the form into view.
  useEffect(() => {
    // A block body: newer browsers answer scrollIntoView with a promise, which React would take for a cleanup.
    formRef.current?.scrollIntoView({ block: 'nearest' });
  }, []);

  const changed = editable.filter((s) => texts[s.stepId] !== asText(s.output));
  const fieldProblem = (stepId: string) =>
    error instanceof ApiError ? error.details.find((d) => d.path === `outputs.${stepId}` || d.path.startsWith(`outputs.${stepId}.`)) : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const outputs: Record<string, unknown> = {};
    for (const step of changed) {
      try {
        outputs[step.stepId] = JSON.parse(texts[step.stepId]);
      } catch {
        setError(new Error(`The output of ${step.stepId} is not valid JSON`));
        return;
      }
    }
    setSending(true);
    try {
      const started = await post<ReplayStarted>(`/executions/${encodeURIComponent(executionId)}/replay`, {
        fromStepId,
        version,
        ...(changed.length > 0 ? { outputs } : {}),
      });
      onStarted(started.executionId);
    } catch (err) {
      setError(err);
      setSending(false);
    }
  };

  return (
    <form ref={formRef} className="replay-form" aria-label={`Replay from ${fromStepId}`} onSubmit={(e) => void submit(e)}>
      <p className="muted">
        The steps before {fromStepId} are not run again: their recorded outputs (or the ones you change below) are reused. {fromStepId} and every step after it
        run, with this run's input and environment.
      </p>
      <fieldset>
        <legend>Version to run</legend>
        <label>
          <input type="radio" name={`${idPrefix}-version`} value="original" checked={version === 'original'} onChange={() => setVersion('original')} /> The
          version this run ran
        </label>
        <label>
          <input type="radio" name={`${idPrefix}-version`} value="current" checked={version === 'current'} onChange={() => setVersion('current')} /> The
          workflow's current version (it must still have step {fromStepId})
        </label>
      </fieldset>
      {earlier.length > 0 && (
        <details>
          <summary>Outputs of earlier steps ({changed.length === 0 ? 'as recorded' : `${changed.length} changed`})</summary>
          {earlier.map((step) => {
            const id = `${idPrefix}-${step.stepId}`;
            const problem = fieldProblem(step.stepId);
            if (step.omitted?.output) {
              return (
                <p key={step.stepId} className="muted">
                  {step.stepId}: too large to edit here; reused as recorded.
                </p>
              );
            }
            return (
              <div className="field" key={step.stepId}>
                <label htmlFor={id}>Output of {step.stepId} to reuse (JSON)</label>
                <textarea
                  id={id}
                  className="mono"
                  rows={Math.min(12, texts[step.stepId].split('\n').length + 1)}
                  value={texts[step.stepId]}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? `${id}-problem` : undefined}
                  onChange={(e) => setTexts({ ...texts, [step.stepId]: e.target.value })}
                />
                {problem && (
                  <p id={`${id}-problem`} className="field-problem">
                    {problem.message}
                  </p>
                )}
              </div>
            );
          })}
        </details>
      )}
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={sending}>
          {sending ? 'Starting…' : `Replay from ${fromStepId}`}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
