import { useId, useMemo, useRef, useState } from 'react';
import type { Suggestion } from './template-suggestions';

interface Props {
  id: string;
  value: string;
  onChange(value: string): void;
  suggestions: readonly Suggestion[];
  multiline?: boolean;
  readOnly?: boolean;
  describedBy?: string;
  invalid?: boolean;
  /** Where no <label> names the field. */
  label?: string;
}

/** The `{{ …` being typed before the caret, if any: where it starts and what is typed so far. */
function openExpression(text: string, caret: number): { start: number; typed: string } | undefined {
  const before = text.slice(0, caret);
  const open = before.lastIndexOf('{{');
  if (open < 0 || before.indexOf('}}', open) >= 0) return undefined;
  const typed = before.slice(open + 2).trimStart();
  return /^[\w$.[\]"-]*$/.test(typed) ? { start: open, typed } : undefined;
}

const MAX_SHOWN = 12;

/**
 * A text field whose templates complete: typing `{{` (or Ctrl+Space inside
 * one) lists what the step can read; arrows choose, Enter or Tab inserts
 * `{{ expression }}`, Escape closes. An ARIA combobox, so a screen reader
 * hears the list and the chosen entry.
 */
export function TemplateInput({ id, value, onChange, suggestions, multiline = false, readOnly = false, describedBy, invalid, label }: Props) {
  const listId = useId();
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState<number | undefined>();
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);

  const open = caret === undefined || readOnly ? undefined : openExpression(value, caret);
  const matches = useMemo(() => {
    if (!open) return [];
    const typed = open.typed.toLowerCase();
    return suggestions.filter((s) => s.expression.toLowerCase().startsWith(typed)).slice(0, MAX_SHOWN);
  }, [open, suggestions]);
  const showing = !closed && matches.length > 0;

  const insert = (s: Suggestion) => {
    if (!open || caret === undefined) return;
    const after = value.slice(caret);
    const closes = /^\s*}}/.test(after);
    const text = `${value.slice(0, open.start)}{{ ${s.expression} }}${closes ? after.replace(/^\s*}}/, '') : after}`;
    onChange(text);
    const at = open.start + s.expression.length + 6;
    setCaret(undefined);
    requestAnimationFrame(() => field.current?.setSelectionRange(at, at));
  };

  const common = {
    id,
    ref: field,
    value,
    readOnly,
    role: 'combobox',
    'aria-autocomplete': 'list' as const,
    'aria-expanded': showing,
    'aria-controls': listId,
    'aria-activedescendant': showing ? `${listId}-${active}` : undefined,
    'aria-describedby': describedBy,
    'aria-invalid': invalid || undefined,
    'aria-label': label,
    autoComplete: 'off',
    spellCheck: false,
    onChange: (e: { target: { value: string; selectionStart: number | null } }) => {
      onChange(e.target.value);
      setCaret(e.target.selectionStart ?? undefined);
      setActive(0);
      setClosed(false);
    },
    onSelect: (e: { currentTarget: { selectionStart: number | null } }) => setCaret(e.currentTarget.selectionStart ?? undefined),
    onBlur: () => setTimeout(() => setCaret(undefined), 150),
    onKeyDown: (e: React.KeyboardEvent) => {
      if (e.key === ' ' && e.ctrlKey) {
        e.preventDefault();
        setClosed(false);
        return;
      }
      if (!showing) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
      } else if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        insert(matches[active]);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        setClosed(true);
      }
    },
  };

  return (
    <div className="template-input">
      {multiline ? <textarea rows={3} {...common} /> : <input type="text" {...common} />}
      {showing && (
        <ul id={listId} role="listbox" className="template-suggestions" aria-label="Values this field can read">
          {matches.map((s, i) => (
            <li
              key={s.expression}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                insert(s);
              }}
            >
              <span className="mono">{s.expression}</span> <span className="muted">{s.source}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
