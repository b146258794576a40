import type { ReactNode } from 'react';

interface Props {
  /** What will happen, said plainly (what stops working, who is affected). */
  question: ReactNode;
  /** The confirming button's name: the action itself ("Revoke token"), never just "OK". */
  confirmLabel: string;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** The second step of a destructive action: its consequence, the action named again, and a way back. */
export function ConfirmPrompt({ question, confirmLabel, busy, onConfirm, onCancel }: Props) {
  return (
    <p>
      {question}{' '}
      <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </p>
  );
}
