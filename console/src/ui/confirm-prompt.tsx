import { type ReactNode, useEffect, useRef } from 'react';

interface Props {
  /** What will happen, said plainly (what stops working, who is affected). */
  question: ReactNode;
  /** The confirming button's name: the action itself ("Revoke token"), never just "OK". */
  confirmLabel: string;
  /** The way back's name; "Cancel" unless that would read as the action itself ("Keep it running" beside "Cancel run"). */
  cancelLabel?: string;
  /**
   * Focus the way back when the prompt appears: for a prompt that replaces the button that asked for it (whose
   * focus would otherwise fall to the page), and the safe choice, so a second Enter does nothing destructive.
   */
  autoFocus?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** The second step of a destructive action: its consequence, the action named again, and a way back. */
export function ConfirmPrompt({ question, confirmLabel, cancelLabel = 'Cancel', autoFocus = false, busy, onConfirm, onCancel }: Props) {
  const back = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (autoFocus) back.current?.focus();
  }, [autoFocus]);
  return (
    <p>
      {question}{' '}
      <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>{' '}
      <button type="button" ref={back} onClick={onCancel}>
        {cancelLabel}
      </button>
    </p>
  );
}
