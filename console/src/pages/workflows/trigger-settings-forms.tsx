import { type FormEvent, useId, useState } from 'react';
import { patch, post } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import { VerificationFields } from './verification-fields';
import {
  DELIVERY_ID_PRESETS,
  deduplicationBody,
  deduplicationDraft,
  type DeduplicationDraft,
  presetOf,
  SCHEME_LABELS,
  verificationBody,
  verificationDraft,
} from './webhook-verification';
import type { VerificationScheme, WebhookTrigger } from './workflow-model';

interface FormProps {
  trigger: WebhookTrigger;
  /** The API's answer (with a signing secret, once, if one was generated). */
  onSaved(trigger: WebhookTrigger): void;
  onCancel(): void;
}

/** Sends one write; its error stays with the form, so the API's field problems show beside the fields. */
function useWrite(onSaved: (trigger: WebhookTrigger) => void) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<WebhookTrigger>) => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = await action();
      setBusy(false);
      onSaved(saved);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return { error, busy, run };
}

function Actions({ busy, label, onCancel }: { busy: boolean; label: string; onCancel(): void }) {
  return (
    <div className="form-actions">
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Saving…' : label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** Sets, changes or removes (scheme "None", confirmed) the trigger's signature verification. */
export function VerificationForm({ trigger, onSaved, onCancel }: FormProps) {
  const [draft, setDraft] = useState(() => verificationDraft(trigger.verification));
  const [confirming, setConfirming] = useState(false);
  const { error, busy, run } = useWrite(onSaved);
  const save = () => run(() => patch<WebhookTrigger>(`/webhook-triggers/${trigger.id}`, verificationBody(draft)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft.scheme && trigger.verification) setConfirming(true);
    else void save();
  };
  return (
    <form className="trigger-form" aria-label={`Verification of ${trigger.name}`} onSubmit={submit}>
      <VerificationFields draft={draft} onChange={setDraft} error={error} hasSecret={trigger.signingSecretSetAt !== null && draft.scheme !== ''} />
      <ErrorBox error={error} />
      {confirming ? (
        <ConfirmPrompt
          question="Deliveries will no longer be checked for a signature, and the signing secrets are forgotten."
          confirmLabel="Remove verification"
          busy={busy}
          onConfirm={() => {
            setConfirming(false);
            void save();
          }}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <Actions busy={busy} label="Save verification" onCancel={onCancel} />
      )}
    </form>
  );
}

/** A new signing secret, the old one verifying for an overlap (hours, default 24) while the sender switches. */
export function RotateSigningSecretForm({ trigger, onSaved, onCancel }: FormProps) {
  const id = useId();
  const scheme = trigger.verification?.scheme as VerificationScheme;
  const [secret, setSecret] = useState('');
  const [hours, setHours] = useState('24');
  const { error, busy, run } = useWrite(onSaved);
  const secretProblem = problemAt(error, 'signingSecret');
  const overlapProblem = problemAt(error, 'overlapSeconds');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = { ...(secret.trim() ? { signingSecret: secret.trim() } : {}), overlapSeconds: Math.round(Number(hours) * 3600) };
    void run(() => post<WebhookTrigger>(`/webhook-triggers/${trigger.id}/signing-secret`, body));
  };
  return (
    <form className="trigger-form" aria-label={`Rotate the signing secret of ${trigger.name}`} onSubmit={submit}>
      <p className="muted">
        {scheme === 'hmac'
          ? 'The new secret verifies at once; give it to your sender. The old one keeps verifying for the overlap.'
          : `Roll the secret at ${SCHEME_LABELS[scheme]} first, then paste the new one: it verifies at once, and deliveries signed with the old one are still accepted for the overlap.`}
      </p>
      <div className="field">
        <label htmlFor={`${id}-secret`}>New signing secret</label>
        <input
          id={`${id}-secret`}
          type="password"
          autoComplete="off"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          required={scheme !== 'hmac'}
          {...problemProps(`${id}-secret`, secretProblem, scheme === 'hmac' ? `${id}-secret-hint` : undefined)}
        />
        {scheme === 'hmac' && (
          <span id={`${id}-secret-hint`} className="muted hint">
            Leave it empty to have one generated (shown once).
          </span>
        )}
        <ProblemNote id={`${id}-secret`} problem={secretProblem} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-overlap`}>Old secret keeps verifying for (hours)</label>
        <input
          id={`${id}-overlap`}
          type="number"
          min={0}
          max={168}
          step="any"
          required
          value={hours}
          onChange={(e) => setHours(e.target.value)}
          {...problemProps(`${id}-overlap`, overlapProblem, `${id}-overlap-hint`)}
        />
        <span id={`${id}-overlap-hint`} className="muted hint">
          0 stops it at once; at most 168 (a week).
        </span>
        <ProblemNote id={`${id}-overlap`} problem={overlapProblem} />
      </div>
      <ErrorBox error={error} />
      <Actions busy={busy} label="Rotate signing secret" onCancel={onCancel} />
    </form>
  );
}

const UNIT_LABELS = { 86_400: 'days', 3600: 'hours', 60: 'minutes' } as const;

/** Deduplication on or off, where a delivery's id is read, and how long an id counts. */
export function DeduplicationForm({ trigger, onSaved, onCancel }: FormProps) {
  const id = useId();
  const scheme = trigger.verification?.scheme;
  const [draft, setDraft] = useState(() => deduplicationDraft(trigger.deduplication, scheme));
  const { error, busy, run } = useWrite(onSaved);
  const set = (changes: Partial<DeduplicationDraft>) => setDraft({ ...draft, ...changes });
  const sourceProblem = problemAt(error, 'deduplication.deliveryId');
  const windowProblem = problemAt(error, 'deduplication.windowSeconds');
  const schemePreset = presetOf(scheme);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => patch<WebhookTrigger>(`/webhook-triggers/${trigger.id}`, { deduplication: deduplicationBody(draft) }));
  };
  return (
    <form className="trigger-form" aria-label={`Deduplication of ${trigger.name}`} onSubmit={submit}>
      <div className="field checkbox">
        <label>
          <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Deduplicate deliveries (a delivery id seen
          within the window starts no second run)
        </label>
      </div>
      <div className="field">
        <label htmlFor={`${id}-source`}>Delivery id from</label>
        <select
          id={`${id}-source`}
          value={draft.source}
          disabled={!draft.enabled}
          onChange={(e) => set({ source: e.target.value as DeduplicationDraft['source'] })}
          {...problemProps(`${id}-source`, draft.source === 'header' || draft.source === 'bodyField' ? undefined : sourceProblem)}
        >
          <option value="default">
            Default:{' '}
            {schemePreset
              ? `the ${SCHEME_LABELS[schemePreset as VerificationScheme]} preset (${DELIVERY_ID_PRESETS[schemePreset]})`
              : 'the Idempotency-Key header'}
          </option>
          <option value="header">A header</option>
          <option value="bodyField">A field of the JSON body</option>
          {Object.entries(DELIVERY_ID_PRESETS).map(([preset, where]) => (
            <option key={preset} value={`preset:${preset}`}>
              {SCHEME_LABELS[preset as VerificationScheme]} preset ({where})
            </option>
          ))}
        </select>
      </div>
      {draft.enabled && (draft.source === 'header' || draft.source === 'bodyField') && (
        <div className="field">
          <label htmlFor={`${id}-name`}>{draft.source === 'header' ? 'Header name' : 'Body field (dotted for nested: event.id)'}</label>
          <input
            id={`${id}-name`}
            required
            autoComplete="off"
            value={draft.name}
            onChange={(e) => set({ name: e.target.value })}
            {...problemProps(`${id}-name`, sourceProblem)}
          />
          <ProblemNote id={`${id}-name`} problem={sourceProblem} />
        </div>
      )}
      {draft.source !== 'header' && draft.source !== 'bodyField' && <ProblemNote id={`${id}-source`} problem={sourceProblem} />}
      <div className="field">
        <label htmlFor={`${id}-window`}>Window</label>
        <span className="inline-fields">
          <input
            id={`${id}-window`}
            type="number"
            min={1}
            step="any"
            required
            value={draft.window}
            onChange={(e) => set({ window: e.target.value })}
            {...problemProps(`${id}-window`, windowProblem, `${id}-window-hint`)}
          />
          <select aria-label="Window unit" value={draft.unit} onChange={(e) => set({ unit: Number(e.target.value) as DeduplicationDraft['unit'] })}>
            {Object.entries(UNIT_LABELS).map(([seconds, label]) => (
              <option key={seconds} value={seconds}>
                {label}
              </option>
            ))}
          </select>
        </span>
        <span id={`${id}-window-hint`} className="muted hint">
          How long an id counts from its first delivery: 1 minute to 30 days (default 4 days).
        </span>
        <ProblemNote id={`${id}-window`} problem={windowProblem} />
      </div>
      <ErrorBox error={error} />
      <Actions busy={busy} label="Save deduplication" onCancel={onCancel} />
    </form>
  );
}

/** What a trigger does with a caller's W3C `traceparent` when the service exports traces. */
export const TRACE_CONTEXT_LABELS: Record<WebhookTrigger['traceContext'], string> = {
  honour: "Continue the caller's trace: the call's spans join the trace its traceparent header names",
  ignore: "Start a trace of the service's own: a caller's traceparent header is ignored",
};

/** Honour or ignore a caller's traceparent. */
export function TraceContextForm({ trigger, onSaved, onCancel }: FormProps) {
  const [mode, setMode] = useState(trigger.traceContext);
  const { error, busy, run } = useWrite(onSaved);
  const name = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => patch<WebhookTrigger>(`/webhook-triggers/${trigger.id}`, { traceContext: mode }));
  };
  return (
    <form className="trigger-form" aria-label={`Trace context of ${trigger.name}`} onSubmit={submit}>
      <fieldset>
        <legend>A caller&apos;s traceparent (used when tracing is on: OTEL_EXPORTER_OTLP_ENDPOINT)</legend>
        {(['honour', 'ignore'] as const).map((value) => (
          <label key={value} className="checkbox">
            <input type="radio" name={name} value={value} checked={mode === value} onChange={() => setMode(value)} /> {TRACE_CONTEXT_LABELS[value]}
          </label>
        ))}
      </fieldset>
      <ErrorBox error={error} />
      <Actions busy={busy} label="Save trace context" onCancel={onCancel} />
    </form>
  );
}
