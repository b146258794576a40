import { useState } from 'react';

/** Copies `text` to the clipboard and says so; when the browser refuses, it says to select and copy by hand. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted copy-status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copying was refused: select the text and copy it' : ''}
      </span>
    </>
  );
}
