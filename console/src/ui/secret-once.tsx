import type { ReactNode } from 'react';
import { CopyButton } from './copy-button';
import './secret-once.css';

interface Props {
  /** What the secret is, in the notice's heading and its copy button ("Secret of new-order"). */
  title: string;
  /** How the secret is used, after the "shown once" note. */
  usage: ReactNode;
  value: string;
  onDone(): void;
}

/** A generated secret, shown once: its value, a copy button, and a clear note that it is never shown again. */
export function SecretOnce({ title, usage, value, onDone }: Props) {
  const named = title.charAt(0).toLowerCase() + title.slice(1);
  return (
    <div className="secret-once" role="status" aria-label={`New ${named}`}>
      <p>
        <strong>{title}</strong>: copy it now, it is not shown again. {usage}
      </p>
      <p className="secret-line">
        <code className="secret-value">{value}</code> <CopyButton text={value} what={named} />
      </p>
      <button type="button" className="link-button" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}
