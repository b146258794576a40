import { type ReactNode, useState } from 'react';
import { del, patch, post } from '../../api/client';
import { CopyButton } from '../../ui/copy-button';
import { formatTime } from '../../ui/format';
import { DeduplicationForm, RotateSigningSecretForm, VerificationForm } from './trigger-settings-forms';
import { describeDeduplication, describeVerification, SCHEME_LABELS, signWebhookCommand } from './webhook-verification';
import type { WebhookTrigger } from './workflow-model';

/** A shell command calling the trigger with the workflow's sample input, the secret left as a placeholder. */
export function curlCommand(trigger: WebhookTrigger, sample: unknown): string {
  const lines = [`curl -X ${trigger.method} '${trigger.url}'`];
  if (trigger.authentication) lines.push(`-H 'Authorization: Bearer <secret>'`);
  if (trigger.method !== 'GET') {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d '${JSON.stringify(sample ?? {}).replace(/'/g, `'\\''`)}'`);
  }
  return lines.join(' \\\n  ');
}

interface Props {
  trigger: WebhookTrigger;
  /** The workflow's sample input, for the curl command. */
  sample: unknown;
  admin: boolean;
  /** A generated secret to show once, in this card (the SecretOnce notices). */
  notices: ReactNode;
  /** Runs a one-click write (rotate, authentication, delete); its error shows at the top of the tab. */
  write(action: () => Promise<WebhookTrigger | undefined>): Promise<boolean>;
  /** A settings form saved: show what it generated, reload the list. */
  onSaved(trigger: WebhookTrigger): void;
}

type Editing = 'verification' | 'rotate' | 'deduplication';

/** One webhook trigger: URL, authentication, signature verification, deduplication; for admins, the forms that change them. */
export function WebhookTriggerCard({ trigger: t, sample, admin, notices, write, onSaved }: Props) {
  const [editing, setEditing] = useState<Editing>();
  const toggle = (what: Editing) => setEditing(editing === what ? undefined : what);
  const saved = (trigger: WebhookTrigger) => {
    setEditing(undefined);
    onSaved(trigger);
  };
  const signed = signWebhookCommand(t, sample);
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
              <button type="button" onClick={() => void write(() => post<WebhookTrigger>(`/webhook-triggers/${t.id}/secret`, {}))}>
                Rotate secret
              </button>
            )}
            <button type="button" onClick={() => void write(() => patch<WebhookTrigger>(`/webhook-triggers/${t.id}`, { authentication: !t.authentication }))}>
              {t.authentication ? 'Turn authentication off' : 'Require a secret'}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Delete the webhook trigger ${t.name}? Callers of its URL get 404 from now on.`)) {
                  void write(async () => {
                    await del(`/webhook-triggers/${t.id}`);
                    return undefined;
                  });
                }
              }}
            >
              Delete
            </button>
          </span>
        )}
      </div>
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
        </p>
      )}
      {editing === 'verification' && <VerificationForm {...formProps} />}
      {editing === 'rotate' && t.verification && <RotateSigningSecretForm {...formProps} />}
      {editing === 'deduplication' && <DeduplicationForm {...formProps} />}
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
            <pre className="json curl">{curlCommand(t, sample)}</pre>
            <CopyButton text={curlCommand(t, sample)} what={`curl command for ${t.name}`} />
          </>
        )}
      </details>
    </li>
  );
}
