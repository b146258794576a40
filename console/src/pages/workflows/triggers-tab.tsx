import { useState } from 'react';
import { del, get, patch, post, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { useApi } from '../../ui/use-api';
import { ScheduleTriggers } from './schedule-triggers';
import { type ListPage, TRIGGER_METHODS, type WebhookTrigger, type Workflow } from './workflow-model';

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

/** The workflow's webhook triggers (URL, authentication, secret rotation, a curl command) and schedule triggers. */
export function TriggersTab({ workflow }: { workflow: Workflow }) {
  const { can } = useSession();
  const admin = can('workflows:admin');
  const path = withQuery('/webhook-triggers', { workflowId: workflow.id, limit: 1000 });
  const triggers = useApi(path, (signal) => get<ListPage<WebhookTrigger>>(path, { signal }));
  const [secret, setSecret] = useState<{ triggerId: string; name: string; secret: string } | undefined>();
  const [error, setError] = useState<unknown>();

  /** Runs a write; a generated secret (creation, rotation, authentication turned on) is shown once. */
  const write = async (action: () => Promise<WebhookTrigger | undefined>) => {
    setError(undefined);
    try {
      const trigger = await action();
      setSecret(trigger?.secret ? { triggerId: trigger.id, name: trigger.name, secret: trigger.secret } : undefined);
      triggers.reload();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };

  return (
    <div className="triggers">
      <h2>Webhook triggers</h2>
      <ErrorBox error={error ?? triggers.error} />
      {secret && (
        <div className="secret-once" role="status" aria-label="New secret">
          <p>
            <strong>Secret of {secret.name}</strong>: copy it now, it is not shown again. Callers send it as <code>Authorization: Bearer &lt;secret&gt;</code>.
          </p>
          <p className="secret-line">
            <code className="secret-value">{secret.secret}</code> <CopyButton text={secret.secret} what={`secret of ${secret.name}`} />
          </p>
          <button type="button" className="link-button" onClick={() => setSecret(undefined)}>
            I have stored it
          </button>
        </div>
      )}
      {!triggers.data ? (
        !triggers.error && <p className="page-status">Loading triggers…</p>
      ) : triggers.data.data.length === 0 ? (
        <p className="empty">No webhook trigger: this workflow runs only from the API, a schedule or a test run.</p>
      ) : (
        <ul className="trigger-list">
          {triggers.data.data.map((t) => (
            <li key={t.id} className="trigger-card" aria-label={`Webhook ${t.name}`}>
              <div className="trigger-head">
                <h3>{t.name}</h3>
                <span className="badge">{t.method}</span>
                <span className={`badge ${t.authentication ? 'succeeded' : ''}`}>{t.authentication ? 'Secret required' : 'No authentication'}</span>
                {admin && (
                  <span className="trigger-actions">
                    {t.authentication && (
                      <button type="button" onClick={() => void write(() => post<WebhookTrigger>(`/webhook-triggers/${t.id}/secret`, {}))}>
                        Rotate secret
                      </button>
                    )}
                    <button
                      type="button"
                      onClick={() => void write(() => patch<WebhookTrigger>(`/webhook-triggers/${t.id}`, { authentication: !t.authentication }))}
                    >
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
              <p className="trigger-url">
                <code>{t.url}</code> <CopyButton text={t.url} what={`URL of ${t.name}`} />
              </p>
              {t.authentication && <p className="muted">Secret set {formatTime(t.secretSetAt)}</p>}
              <details>
                <summary>Call it with curl</summary>
                <pre className="json curl">{curlCommand(t, workflow.definition.initial)}</pre>
                <CopyButton text={curlCommand(t, workflow.definition.initial)} what={`curl command for ${t.name}`} />
              </details>
            </li>
          ))}
        </ul>
      )}
      {admin && <NewWebhookTrigger onCreate={(body) => write(() => post<WebhookTrigger>(`/workflows/${workflow.id}/triggers`, body))} />}
      <ScheduleTriggers workflow={workflow} />
    </div>
  );
}

function NewWebhookTrigger({ onCreate }: { onCreate(body: { name: string; method: string; authentication: boolean }): Promise<boolean> }) {
  const [name, setName] = useState('');
  const [method, setMethod] = useState('POST');
  const [authentication, setAuthentication] = useState(true);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="filters new-trigger"
      aria-label="New webhook trigger"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        if (await onCreate({ name, method, authentication })) setName('');
        setBusy(false);
      }}
    >
      <div>
        <label htmlFor="trigger-name">New trigger name</label>
        <input
          id="trigger-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,99}"
          placeholder="new-order"
        />
      </div>
      <div>
        <label htmlFor="trigger-method">Method</label>
        <select id="trigger-method" value={method} onChange={(e) => setMethod(e.target.value)}>
          {TRIGGER_METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </div>
      <div className="checkbox">
        <label>
          <input type="checkbox" checked={authentication} onChange={(e) => setAuthentication(e.target.checked)} /> Require a secret
        </label>
      </div>
      <div>
        <button type="submit" className="primary" disabled={busy}>
          Add webhook trigger
        </button>
      </div>
    </form>
  );
}
