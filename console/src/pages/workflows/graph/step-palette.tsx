import { useEffect, useMemo, useRef, useState } from 'react';
import type { InsertionPoint } from './definition-graph';
import { LOOP_BODY_TYPES, STEP_CATALOG, type StepKind } from './step-catalog';

/**
 * The step types to insert at a point, searchable by name, type or what it
 * does, each with a line of description and an example. A modal dialog: the
 * search has focus when it opens, Escape closes it, and focus goes back to
 * the button that opened it.
 */
export function StepPalette({ point, after, onPick, onClose }: { point: InsertionPoint; after: string; onPick(kind: StepKind): void; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [query, setQuery] = useState('');
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => opener?.focus();
  }, []);
  const kinds = useMemo(() => {
    const allowed = STEP_CATALOG.filter((k) => point.scope !== 'loop-body' || LOOP_BODY_TYPES.has(k.type));
    const q = query.trim().toLowerCase();
    return q ? allowed.filter((k) => `${k.label} ${k.type} ${k.summary}`.toLowerCase().includes(q)) : allowed;
  }, [point.scope, query]);

  return (
    <dialog ref={dialog} className="step-palette" aria-labelledby="palette-title" onClose={onClose} onCancel={onClose}>
      <h2 id="palette-title">Add a step after {after}</h2>
      {point.scope === 'loop-body' && <p className="muted">Inside a loop body: the step types that can run once per item.</p>}
      <label htmlFor="palette-search">Search step types</label>
      <input id="palette-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} autoFocus placeholder="http, branch, agent…" />
      <ul className="palette-list" aria-label="Step types">
        {kinds.map((k) => (
          <li key={k.type}>
            <button type="button" onClick={() => onPick(k)}>
              <span className="palette-label">{k.label}</span> <span className="mono muted">{k.type}</span>
              <span className="palette-summary">{k.summary}</span>
              <span className="palette-example mono">{k.example}</span>
            </button>
          </li>
        ))}
        {kinds.length === 0 && <li className="muted">No step type matches “{query}”.</li>}
      </ul>
      <div className="palette-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
