import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { del, get, patch, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import { useApi } from '../../ui/use-api';
import type { EnvironmentList, ExecutionList, ScheduleTriggerList, WebhookTriggerList, Workflow } from './workflow-model';

/** What is not the definition: the default environment (no new version), and, for `workflows:admin`, deleting the workflow. */
export function WorkflowSettingsTab({ workflow, onSaved }: { workflow: Workflow; onSaved(): void }) {
  const { can } = useSession();
  const admin = can('workflows:admin');
  return (
    <div className="workflow-settings">
      <DefaultEnvironment workflow={workflow} admin={admin} onSaved={onSaved} />
      {admin && <DeleteWorkflow workflow={workflow} />}
    </div>
  );
}

const ENVIRONMENTS = withQuery('/environments', { limit: 1000 });

function DefaultEnvironment({ workflow, admin, onSaved }: { workflow: Workflow; admin: boolean; onSaved(): void }) {
  const current = workflow.settings.defaultEnvironment ?? '';
  const environments = useApi(admin ? ENVIRONMENTS : null, (signal) => get<EnvironmentList>(ENVIRONMENTS, { signal }));
  const [chosen, setChosen] = useState(current);
  const [saved, setSaved] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const problem = problemAt(error, 'defaultEnvironment');
  const explanation = (
    <p className="muted">
      Runs use the default environment’s variables (<code>$env</code>) unless a call names another: a webhook’s <code>?env=</code>, a schedule trigger’s
      environment, a run started through the API. Changing it makes no new version.
    </p>
  );

  if (!admin) {
    return (
      <section aria-labelledby="default-environment-heading">
        <h2 id="default-environment-heading">Default environment</h2>
        <p>{current ? <code>{current}</code> : 'None: runs see no environment variables unless a call names an environment.'}</p>
        {explanation}
      </section>
    );
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    try {
      const updated = await patch<Workflow>(`/workflows/${workflow.id}/settings`, { defaultEnvironment: chosen || null });
      setSaved(updated.settings.defaultEnvironment ?? '');
      onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const names = environments.data?.data.map((e) => e.name) ?? [];
  // A default whose environment is not listed (yet) stays choosable, so the form never shows another value than the saved one.
  if (current && !names.includes(current)) names.unshift(current);
  return (
    <form className="trigger-form" aria-labelledby="default-environment-heading" onSubmit={(e) => void submit(e)}>
      <h2 id="default-environment-heading">Default environment</h2>
      {explanation}
      <ErrorBox error={environments.error} />
      <div className="field">
        <label htmlFor="default-environment">Environment</label>
        <select
          id="default-environment"
          value={chosen}
          onChange={(e) => {
            setChosen(e.target.value);
            setSaved(undefined);
          }}
          disabled={!environments.data}
          {...problemProps('default-environment', problem)}
        >
          <option value="">None</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <ProblemNote id="default-environment" problem={problem} />
      </div>
      {environments.data?.total === 0 && (
        <p className="hint">
          The organization has no environment yet: <Link to="/settings/environments">create one in Settings</Link>.
        </p>
      )}
      {!problem && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || chosen === current}>
          {busy ? 'Saving…' : 'Save default environment'}
        </button>
        {saved !== undefined && (
          <span role="status" className="saved-note">
            Saved: {saved ? `runs use ${saved} by default` : 'no default environment'}
          </span>
        )}
      </div>
    </form>
  );
}

/** The workflow's deletion, its confirmation naming the triggers that go with it and the runs it leaves behind. */
function DeleteWorkflow({ workflow }: { workflow: Workflow }) {
  const navigate = useNavigate();
  const hooksPath = withQuery('/webhook-triggers', { workflowId: workflow.id, limit: 1000 });
  const schedulesPath = withQuery('/schedule-triggers', { workflowId: workflow.id, limit: 1000 });
  const runsPath = withQuery('/executions', { workflowId: workflow.id, limit: 1 });
  const hooks = useApi(hooksPath, (signal) => get<WebhookTriggerList>(hooksPath, { signal }));
  const schedules = useApi(schedulesPath, (signal) => get<ScheduleTriggerList>(schedulesPath, { signal }));
  const runs = useApi(runsPath, (signal) => get<ExecutionList>(runsPath, { signal }));
  const loadError = hooks.error ?? schedules.error ?? runs.error;

  if (!hooks.data || !schedules.data || !runs.data) {
    return (
      <section className="danger-zone" aria-label="Delete workflow">
        {loadError ? <ErrorBox error={loadError} /> : <p className="page-status">Loading what deleting would affect…</p>}
      </section>
    );
  }
  return (
    <DangerZone
      heading="Delete workflow"
      question={<DeletionConsequences workflow={workflow} hooks={hooks.data} schedules={schedules.data} runs={runs.data.total} />}
      confirmLabel="Delete workflow"
      action={() => del(`/workflows/${workflow.id}`)}
      then={() => void navigate('/workflows', { replace: true })}
    />
  );
}

/** A list of names as a sentence: "a", "a and b", "a, b and c". */
function names(items: { name: string }[]) {
  return items.map((item, i) => (
    <span key={item.name}>
      {i > 0 && (i === items.length - 1 ? ' and ' : ', ')}
      <code>{item.name}</code>
    </span>
  ));
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * What DELETE /workflows/{id} does (src/workflows/workflows.service.ts, and its triggers' cascade): the versions and
 * triggers go, each schedule's Temporal Schedule first; runs are history and stay, those in flight finish on
 * the definition they started with, and none can be rerun or replayed once their workflow is gone.
 */
function DeletionConsequences({
  workflow,
  hooks,
  schedules,
  runs,
}: {
  workflow: Workflow;
  hooks: WebhookTriggerList;
  schedules: ScheduleTriggerList;
  runs: number;
}) {
  return (
    <>
      Delete <code>{workflow.name}</code> and its {plural(workflow.version, 'version', 'versions')}?{' '}
      {hooks.total === 0 && schedules.total === 0 ? (
        'It has no trigger.'
      ) : (
        <>
          Its triggers are deleted with it:
          {hooks.total > 0 && (
            <>
              {' '}
              {hooks.total === 1 ? 'the webhook trigger' : 'the webhook triggers'} {names(hooks.data)} (callers of{' '}
              {hooks.total === 1 ? 'its URL' : 'their URLs'} get 404)
            </>
          )}
          {hooks.total > 0 && schedules.total > 0 && ' and'}
          {schedules.total > 0 && (
            <>
              {' '}
              {schedules.total === 1 ? 'the schedule trigger' : 'the schedule triggers'} {names(schedules.data)} (no more scheduled runs)
            </>
          )}
          .
        </>
      )}{' '}
      {runs === 0
        ? 'It has no runs.'
        : `Its ${plural(runs, 'run stays', 'runs stay')} in the run history, but can no longer be rerun or replayed; runs still going finish on the version they started with.`}
    </>
  );
}
