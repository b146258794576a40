import { type ReactNode, useState } from 'react';
import { del, patch, post } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { CopyButton } from '../../ui/copy-button';
import { formatTime } from '../../ui/format';
import { DeduplicationForm, RotateSigningSecretForm, TRACE_CONTEXT_LABELS, TraceContextForm, VerificationForm } from './trigger-settings-forms';
import { curlCommand, signedCommand, type ShownSecrets } from './trigger-commands';
import { describeDeduplication, describeVerification, SCHEME_LABELS } from './webhook-verification';
import type { WebhookTrigger } from './workflow-model';

interface Props {
  trigger: WebhookTrigger;
  /** The workflow's sample input, for the curl command. */
  sample: unknown;
  admin: boolean;
  /** A generated secret to show once, in this card (the SecretOnce notices). */
  notices: ReactNode;
  /** The secrets those notices show: the curl commands carry them while they are shown. */
  shownSecrets?: ShownSecrets;
  /** Runs a one-click write (rotate, authentication, delete); its error shows at the top of the tab. */
  write(action: () => Promise<WebhookTrigger | undefined>): Promise<boolean>;
  /** A settings form saved: show what it generated, reload the list. */
  onSaved(trigger: WebhookTrigger): void;
}

type Editing = 'verification' | 'rotate' | 'deduplication' | 'trace-context';
/** The one-click writes that break callers or open the URL to anyone: each asks first. */
type Asking = 'rotate-secret' | 'authentication-off' | 'delete';

/** One webhook trigger: URL, authentication, signature verification, deduplication; for admins, the forms that change them. */
export function WebhookTriggerCard({ trigger: t, sample, admin, notices, shownSecrets = {}, write, onSaved }: Props) {
  const [editing, setEditing] = useState<Editing>();
  const [asking, setAsking] = useState<Asking>();
  const [busy, setBusy] = useState(false);
  const confirmed = async (action: () => Promise<WebhookTrigger | undefined>) => {
    setBusy(true);
    // The card may be gone after (a deletion): the prompt closes on success only, its error shows at the top of the tab.
    if (await write(action)) setAsking(undefined);
    setBusy(false);
  };
  const prompts: Record<Asking, { question: string; confirmLabel: string; cancelLabel: string; action(): Promise<WebhookTrigger | undefined> }> = {
    'rotate-secret': {
      question: `Rotate the secret of ${t.name}? The current secret stops working at once: every caller must switch to the new one.`,
      confirmLabel: 'Rotate the secret',
      cancelLabel: 'Keep the current secret',
      action: () => post<WebhookTrigger>(`/webhook-triggers/${t.id}/secret`, {}),
    },
    'authentication-off': {
      question: `Turn authentication off for ${t.name}? Anyone who knows its URL can then start runs, and its secret is dropped.`,
      confirmLabel: 'Turn off authentication',
      cancelLabel: 'Keep the secret',
      action: () => patch<WebhookTrigger>(`/webhook-triggers/${t.id}`, { authentication: false }),
    },
    delete: {
      question: `Delete the webhook trigger ${t.name}? Callers of its URL get 404 from now on.`,
      confirmLabel: 'Delete webhook trigger',
      cancelLabel: 'Keep it',
      action: async () => {
        await del(`/webhook-triggers/${t.id}`);
        return undefined;
      },
    },
  };
  const prompt = asking && prompts[asking];
  const toggle = (what: Editing) => setEditing(editing === what ? undefined : what);
  const saved = (trigger: WebhookTrigger) => {
    setEditing(undefined);
    onSaved(trigger);
  };
  const signed = signedCommand(t, sample, shownSecrets);
  const curl = curlCommand(t, sample, shownSecrets);
  const formProps = { trigger: t, onSaved: saved, onCancel: () => setEditing(undefined) };
  return (
    <li className="trigger-card" aria-label={`Webhook ${t.name}`}>
      <div className="trigger-head">
        <h3>{t.name}</h3>
        <span className="badge">{t.method}</span>
        <span className={`badge ${t.authentication ? 'succeeded' : ''}`}>{t.authentication ? 'Secret required' : 'No authentication'}</span>
        {t.verification && <span className="badge succeeded">{SCHEME_LABELS[t.verification.scheme]} signature</span>}
        {admin && (
          <span className="trigger-actions">
            {t.authentication && (
              <button type="button" aria-expanded={asking === 'rotate-secret'} onClick={() => setAsking('rotate-secret')}>
                Rotate secret
              </button>
            )}
            {t.authentication ? (
              <button type="button" aria-expanded={asking === 'authentication-off'} onClick={() => setAsking('authentication-off')}>
                Turn authentication off
              </button>
            ) : (
              <button type="button" onClick={() => void write(() => patch<WebhookTrigger>(`/webhook-triggers/${t.id}`, { authentication: true }))}>
                Require a secret
              </button>
            )}
            <button type="button" className="danger" aria-expanded={asking === 'delete'} onClick={() => setAsking('delete')}>
              Delete
            </button>
          </span>
        )}
      </div>
      {admin && prompt && (
        <ConfirmPrompt
          key={asking}
          question={prompt.question}
          confirmLabel={prompt.confirmLabel}
          cancelLabel={prompt.cancelLabel}
          autoFocus
          busy={busy}
          onConfirm={() => void confirmed(prompt.action)}
          onCancel={() => setAsking(undefined)}
        />
      )}
      {notices}
      <p className="trigger-url">
        <code>{t.url}</code> <CopyButton text={t.url} what={`URL of ${t.name}`} />
      </p>
      {t.authentication && <p className="muted">Secret set {formatTime(t.secretSetAt)}</p>}
      <dl className="trigger-facts" aria-label={`Delivery checks of ${t.name}`}>
        <div>
          <dt>Signature</dt>
          <dd>{t.verification ? describeVerification(t.verification) : 'None: deliveries are not checked for a signature'}</dd>
        </div>
        {t.verification && (
          <div>
            <dt>Signing secret</dt>
            <dd>
              Set {formatTime(t.signingSecretSetAt)}
              {t.signingOverlapUntil && <>; the previous one still verifies until {formatTime(t.signingOverlapUntil)}</>}
            </dd>
          </div>
        )}
        <div>
          <dt>Deduplication</dt>
          <dd>{describeDeduplication(t.deduplication)}</dd>
        </div>
        <div>
          <dt>Trace context</dt>
          <dd>{TRACE_CONTEXT_LABELS[t.traceContext]}</dd>
        </div>
      </dl>
      {admin && (
        <p className="trigger-settings-actions">
          <button type="button" aria-expanded={editing === 'verification'} onClick={() => toggle('verification')}>
            {t.verification ? 'Change verification' : 'Verify signatures'}
          </button>
          {t.verification && (
            <button type="button" aria-expanded={editing === 'rotate'} onClick={() => toggle('rotate')}>
              Rotate signing secret
            </button>
          )}
          <button type="button" aria-expanded={editing === 'deduplication'} onClick={() => toggle('deduplication')}>
            Change deduplication
          </button>
          <button type="button" aria-expanded={editing === 'trace-context'} onClick={() => toggle('trace-context')}>
            Change trace context
          </button>
        </p>
      )}
      {editing === 'verification' && <VerificationForm {...formProps} />}
      {editing === 'rotate' && t.verification && <RotateSigningSecretForm {...formProps} />}
      {editing === 'deduplication' && <DeduplicationForm {...formProps} />}
      {editing === 'trace-context' && <TraceContextForm {...formProps} />}
      <details>
        <summary>Call it with curl</summary>
        {t.verification ? (
          signed ? (
            <>
              <p className="muted">
                Deliveries must carry a {SCHEME_LABELS[t.verification.scheme]} signature: this prints a signed curl command
                {t.authentication ? " (add the secret's Authorization header to it)" : ''}.
              </p>
              <pre className="json curl">{signed}</pre>
              <CopyButton text={signed} what={`sign-webhook command for ${t.name}`} />
            </>
          ) : (
            <p className="muted">Deliveries must carry a {SCHEME_LABELS[t.verification.scheme]} signature, which curl alone does not add.</p>
          )
        ) : (
          <>
            <pre className="json curl">{curl}</pre>
            <CopyButton text={curl} what={`curl command for ${t.name}`} />
          </>
        )}
      </details>
    </li>
  );
}
