import { type FormEvent, type ReactNode, useState } from 'react';
import { ErrorBox } from '../../ui/error-box';

interface Props {
  id: string;
  label: string;
  initial: Record<string, unknown>;
  submitLabel: string;
  /** Fields shown above the JSON (a key input, a mode choice). */
  children?: ReactNode;
  /** Receives the parsed object; a thrown error (ApiError with field details) is shown under the form. */
  onSubmit(value: Record<string, unknown>): Promise<void>;
  onCancel?(): void;
}

/** Checks the text is a JSON object before anything is sent: the API would refuse anything else. */
function parseObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`The value is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('The value must be a JSON object, e.g. {"status": "paid"}');
  }
  return parsed as Record<string, unknown>;
}

/** A record value edited as JSON text, checked locally, then sent; the API's validation errors appear beside it. */
export function JsonValueForm({ id, label, initial, submitLabel, children, onSubmit, onCancel }: Props) {
  const [text, setText] = useState(() => JSON.stringify(initial, null, 2));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await onSubmit(parseObject(text));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stacked-form" onSubmit={(e) => void submit(e)}>
      {children}
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <textarea
          id={id}
          className="json-input"
          rows={Math.min(24, Math.max(6, text.split('\n').length + 1))}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
