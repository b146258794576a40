import { type FormEvent, useState } from 'react';
import { get, post, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import { useApi } from '../../ui/use-api';
import { ScheduleTriggers } from './schedule-triggers';
import { SecretOnce } from '../../ui/secret-once';
import { VerificationFields } from './verification-fields';
import { WebhookTriggerCard } from './webhook-trigger-card';
import { verificationBody, verificationDraft } from './webhook-verification';
import { TRIGGER_METHODS, type WebhookTrigger, type WebhookTriggerList, type Workflow } from './workflow-model';

/** The secrets an answer generated, shown once in their trigger's card until dismissed. */
type Generated = Pick<WebhookTrigger, 'name' | 'secret' | 'signingSecret'>;

/** The workflow's webhook triggers (URL, authentication, signature verification, deduplication, a curl command) and schedule triggers. */
export function TriggersTab({ workflow }: { workflow: Workflow }) {
  const { can } = useSession();
  const admin = can('workflows:admin');
  const path = withQuery('/webhook-triggers', { workflowId: workflow.id, limit: 1000 });
  const triggers = useApi(path, (signal) => get<WebhookTriggerList>(path, { signal }));
  const [generated, setGenerated] = useState<Record<string, Generated>>({});
  const [error, setError] = useState<unknown>();

  /** Keeps what an answer generated (creation, rotation, authentication turned on) to show it once, and reloads the list. */
  const saved = (trigger: WebhookTrigger | undefined) => {
    if (trigger?.secret || trigger?.signingSecret) {
      const shown = { name: trigger.name, secret: trigger.secret, signingSecret: trigger.signingSecret };
      setGenerated((all) => ({ ...all, [trigger.id]: shown }));
    }
    triggers.reload();
  };
  const dismiss = (id: string, which: 'secret' | 'signingSecret') => setGenerated((all) => ({ ...all, [id]: { ...all[id], [which]: undefined } }));

  /** Runs a one-click write; its error shows above the list. */
  const write = async (action: () => Promise<WebhookTrigger | undefined>) => {
    setError(undefined);
    try {
      saved(await action());
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };

  const notices = (id: string) => {
    const g = generated[id];
    if (!g) return null;
    return (
      <>
        {g.secret && (
          <SecretOnce
            title={`Secret of ${g.name}`}
            usage={
              <>
                Callers send it as <code>Authorization: Bearer &lt;secret&gt;</code>.
              </>
            }
            value={g.secret}
            onDone={() => dismiss(id, 'secret')}
          />
        )}
        {g.signingSecret && (
          <SecretOnce
            title={`Signing secret of ${g.name}`}
            usage="Your sender signs each delivery with it, as the trigger's verification says."
            value={g.signingSecret}
            onDone={() => dismiss(id, 'signingSecret')}
          />
        )}
      </>
    );
  };

  return (
    <div className="triggers">
      <h2>Webhook triggers</h2>
      <ErrorBox error={error ?? triggers.error} />
      {!triggers.data ? (
        !triggers.error && <p className="page-status">Loading triggers…</p>
      ) : triggers.data.data.length === 0 ? (
        <p className="empty-state">No webhook trigger: this workflow runs only from the API, a schedule or a test run.</p>
      ) : (
        <ul className="trigger-list">
          {triggers.data.data.map((t) => (
            <WebhookTriggerCard
              key={t.id}
              trigger={t}
              sample={workflow.definition.initial}
              admin={admin}
              notices={notices(t.id)}
              shownSecrets={generated[t.id]}
              write={write}
              onSaved={saved}
            />
          ))}
        </ul>
      )}
      {admin && <NewWebhookTrigger workflowId={workflow.id} onCreated={saved} />}
      <ScheduleTriggers workflow={workflow} />
    </div>
  );
}

/** A new webhook trigger: its name and method, a bearer secret or not, and the signature its deliveries must carry. */
function NewWebhookTrigger({ workflowId, onCreated }: { workflowId: string; onCreated(trigger: WebhookTrigger): void }) {
  const [name, setName] = useState('');
  const [method, setMethod] = useState('POST');
  const [authentication, setAuthentication] = useState(true);
  const [verification, setVerification] = useState(() => verificationDraft(null));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const nameProblem = problemAt(error, 'name');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const { verification: config, signingSecret } = verificationBody(verification);
    try {
      const created = await post<WebhookTrigger>(`/workflows/${workflowId}/triggers`, {
        name,
        method,
        authentication,
        ...(config ? { verification: config } : {}),
        ...(signingSecret ? { signingSecret } : {}),
      });
      setName('');
      setAuthentication(true);
      setVerification(verificationDraft(null));
      onCreated(created);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="new-trigger" aria-label="New webhook trigger" onSubmit={(e) => void submit(e)}>
      <div className="filters">
        <div>
          <label htmlFor="trigger-name">New trigger name</label>
          <input
            id="trigger-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,99}"
            placeholder="new-order"
            {...problemProps('trigger-name', nameProblem)}
          />
          <ProblemNote id="trigger-name" problem={nameProblem} />
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
      </div>
      <VerificationFields
        draft={verification}
        onChange={(next) => {
          // A vendor cannot send our bearer secret, and a signature authenticates its deliveries: picking a scheme turns it off (it can be turned on again).
          if (next.scheme && !verification.scheme) setAuthentication(false);
          setVerification(next);
        }}
        error={error}
      />
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Add webhook trigger
        </button>
      </div>
    </form>
  );
}
