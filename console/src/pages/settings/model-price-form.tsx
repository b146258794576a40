import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ErrorBox } from '../../ui/error-box';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import type { LlmPriceEntry } from './settings-types';

const PROVIDERS = ['openai', 'anthropic'] as const satisfies readonly LlmPriceEntry['provider'][];

interface Draft {
  provider: LlmPriceEntry['provider'];
  model: string;
  inputPerMillion: string;
  outputPerMillion: string;
  since: string;
}

const today = () => new Date().toISOString().slice(0, 10);

const draftOf = (entry: LlmPriceEntry | undefined): Draft => ({
  provider: entry?.provider ?? 'openai',
  model: entry?.model ?? '',
  inputPerMillion: entry ? String(entry.inputPerMillion) : '',
  outputPerMillion: entry ? String(entry.outputPerMillion) : '',
  since: entry?.since ?? today(),
});

/** An empty price is left out, so the API's own "is required" shows at the field, never a silent 0. */
const amount = (text: string) => (text.trim() === '' ? undefined : Number(text));

interface Props {
  label: string;
  submitLabel: string;
  /** The entry changed; none for a new one. */
  existing?: LlmPriceEntry;
  /** Its index in the list the save sends: the API names problems `entries.<index>.<field>`. */
  index: number;
  /** Sends the organization's entries with this one; what it throws is shown at the fields the API names. */
  save(entry: LlmPriceEntry): Promise<void>;
  onCancel(): void;
}

/** One of the organization's own prices: provider, model, USD per million input and output tokens, and the UTC day it applies from. */
export function PriceForm({ label, submitLabel, existing, index, save, onCancel }: Props) {
  const id = useId();
  const [draft, setDraft] = useState(() => draftOf(existing));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const problem = (field: keyof Draft) => problemAt(error, `entries.${index}.${field}`);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await save({
        provider: draft.provider,
        model: draft.model.trim(),
        // The API's schema checks these; the form sends what was typed.
        inputPerMillion: amount(draft.inputPerMillion) as number,
        outputPerMillion: amount(draft.outputPerMillion) as number,
        currency: 'USD',
        since: draft.since,
      });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const field = (name: keyof Draft, text: string, input: (props: ReturnType<typeof problemProps> & { id: string }) => ReactNode, grow = false) => (
    <div className={grow ? 'field grow' : 'field'}>
      <label htmlFor={`${id}-${name}`}>{text}</label>
      {input({ id: `${id}-${name}`, ...problemProps(`${id}-${name}`, problem(name)) })}
      <ProblemNote id={`${id}-${name}`} problem={problem(name)} />
    </div>
  );

  return (
    <form className="panel stacked-form" aria-label={label} onSubmit={(e) => void submit(e)}>
      <div className="form-row">
        {field('provider', 'Provider', (props) => (
          <select {...props} value={draft.provider} onChange={(e) => set({ provider: e.target.value as Draft['provider'] })}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        ))}
        {field(
          'model',
          'Model',
          (props) => (
            <input {...props} value={draft.model} onChange={(e) => set({ model: e.target.value })} placeholder="gpt-4o-mini" autoComplete="off" />
          ),
          true,
        )}
      </div>
      <div className="form-row">
        {field('inputPerMillion', 'Input, USD per 1M tokens', (props) => (
          <input
            {...props}
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={draft.inputPerMillion}
            onChange={(e) => set({ inputPerMillion: e.target.value })}
          />
        ))}
        {field('outputPerMillion', 'Output, USD per 1M tokens', (props) => (
          <input
            {...props}
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={draft.outputPerMillion}
            onChange={(e) => set({ outputPerMillion: e.target.value })}
          />
        ))}
        {field('since', 'From (UTC day)', (props) => (
          <input {...props} type="date" value={draft.since} onChange={(e) => set({ since: e.target.value })} />
        ))}
      </div>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
