import { type ReactNode, useId, useState } from 'react';
import { ConfirmPrompt } from './confirm-prompt';
import { ErrorBox } from './error-box';

interface Props {
  heading: string;
  question: ReactNode;
  confirmLabel: string;
  /** The deletion; on success, `then` runs (usually leaving the page), on failure its error shows here. */
  action(): Promise<unknown>;
  then(): void;
}

/** A page's deletion of its own subject, at the bottom of the page: a button, then a confirmation naming the consequence. */
export function DangerZone({ heading, question, confirmLabel, action, then }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const headingId = useId();
  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      then();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }
  return (
    <section className="danger-zone" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      {confirming ? (
        <ConfirmPrompt question={question} confirmLabel={confirmLabel} busy={busy} onConfirm={() => void confirm()} onCancel={() => setConfirming(false)} />
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
      <ErrorBox error={error} />
    </section>
  );
}
