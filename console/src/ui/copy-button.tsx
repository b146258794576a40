import { useState } from 'react';

/** Copies `text` to the clipboard and says so; where the browser refuses, says to select the text instead. */
/** `what` names the copied thing for assistive technology when the label alone does not ("Copy" beside several values). */
export function CopyButton({ text, label = 'Copy', what }: { text: string; label?: string; what?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()} aria-label={what ? `${label} ${what}` : undefined}>
        {label}
      </button>
      <span role="status" className="muted copy-status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copying was refused: select the text and copy it' : ''}
      </span>
    </>
  );
}
