import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { Page } from '../../ui/page';
import { useApi, usePolling } from '../../ui/use-api';
import { BulkProgress } from './bulk-replay-progress';
import { type BulkReplayPreview, type BulkReplayProgress, type BulkReplayStarted, ENDED_STATUSES, type WorkflowList } from './run-model';
import { toInstant } from './run-filters';

interface BulkForm {
  workflowId: string;
  status: string;
  failedStepId: string;
  /** datetime-local values (the browser's local time), as typed. */
  startedAfter: string;
  startedBefore: string;
  fromStepId: string;
  version: 'original' | 'current';
}

const EMPTY: BulkForm = { workflowId: '', status: '', failedStepId: '', startedAfter: '', startedBefore: '', fromStepId: '', version: 'original' };

/** POST /executions/replay's body for this form; empty filters are left out. */
function bulkBody(form: BulkForm, dryRun: boolean) {
  return {
    filter: {
      workflowId: form.workflowId,
      ...(form.status ? { status: form.status } : {}),
      ...(form.failedStepId ? { failedStepId: form.failedStepId } : {}),
      ...(toInstant(form.startedAfter) ? { startedAfter: toInstant(form.startedAfter) } : {}),
      ...(toInstant(form.startedBefore) ? { startedBefore: toInstant(form.startedBefore) } : {}),
    },
    fromStepId: form.fromStepId,
    version: form.version,
    dryRun,
  };
}

/**
 * Replays many ended runs of a workflow from one step. "Preview" is the API's dry run (how many runs match, and
 * which); "Start" is offered only for the form as it was previewed. A started bulk's id goes in the URL
 * (`?bulk=<id>`), so its progress page survives a reload and can be shared.
 */
export function BulkReplayPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const bulkId = params.get('bulk');
  const [form, setForm] = useState<BulkForm>(EMPTY);
  const [preview, setPreview] = useState<{ form: BulkForm; total: number; executionIds: string[] }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<'preview' | 'start'>();
  const workflows = useApi('/workflows?limit=1000', (signal) => get<WorkflowList>('/workflows', { signal, query: { limit: 1000 } }));

  const progressPath = bulkId ? `/executions/replays/${encodeURIComponent(bulkId)}` : null;
  const progress = useApi(progressPath, (signal) => get<BulkReplayProgress>(progressPath!, { signal }));
  usePolling(progress.reload, 1500, progress.data?.status === 'running' && !progress.loading);

  const previewed = preview !== undefined && JSON.stringify(preview.form) === JSON.stringify(form);
  const set = (key: keyof BulkForm) => (event: { target: { value: string } }) => setForm({ ...form, [key]: event.target.value });

  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? 'preview' : 'start');
    setError(undefined);
    try {
      if (dryRun) {
        const answer = await post<BulkReplayPreview>('/executions/replay', bulkBody(form, true));
        setPreview({ form, total: answer.total, executionIds: answer.executionIds });
      } else {
        const started = await post<BulkReplayStarted>('/executions/replay', bulkBody(form, false));
        setParams({ bulk: started.bulkId });
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(true);
  };

  if (bulkId) {
    return (
      <Page title="Bulk replay" subtitle={<Link to="/runs/replay">New bulk replay</Link>}>
        {progress.data && progress.data.bulkId === bulkId ? (
          <BulkProgress bulk={progress.data} />
        ) : progress.error && !progress.loading ? (
          <ErrorBox error={progress.error} />
        ) : (
          <p className="page-status">Loading the bulk replay…</p>
        )}
        {progress.data && <ErrorBox error={progress.error} />}
      </Page>
    );
  }
  if (!can('workflows:admin')) {
    return (
      <Page title="Bulk replay">
        <p>Replaying runs needs the workflows:admin permission.</p>
        <p>
          <Link to="/runs">All runs</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page
      title="Bulk replay"
      subtitle={
        <>
          <Link to="/runs">Runs</Link> / replay many ended runs of a workflow from one step
        </>
      }
    >
      <form className="stacked-form bulk-replay-form" aria-label="Bulk replay" onSubmit={submit}>
        <fieldset className="filters">
          <legend>Which runs</legend>
          <div>
            <label htmlFor="bulk-workflow">Workflow</label>
            <select id="bulk-workflow" required value={form.workflowId} onChange={set('workflowId')}>
              <option value="">Choose…</option>
              {workflows.data?.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="bulk-status">Status</label>
            <select id="bulk-status" value={form.status} onChange={set('status')}>
              <option value="">Any ended run</option>
              {ENDED_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.replace('_', ' ')}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="bulk-failed-step">Failed at step (optional)</label>
            <input id="bulk-failed-step" value={form.failedStepId} onChange={set('failedStepId')} />
          </div>
          <div>
            <label htmlFor="bulk-after">Started after</label>
            <input id="bulk-after" type="datetime-local" step="1" value={form.startedAfter} onChange={set('startedAfter')} />
          </div>
          <div>
            <label htmlFor="bulk-before">Started before</label>
            <input id="bulk-before" type="datetime-local" step="1" value={form.startedBefore} onChange={set('startedBefore')} />
          </div>
        </fieldset>
        <fieldset className="filters">
          <legend>How to replay them</legend>
          <div>
            <label htmlFor="bulk-from">From step</label>
            <input id="bulk-from" required value={form.fromStepId} onChange={set('fromStepId')} aria-describedby="bulk-from-hint" />
            <p id="bulk-from-hint" className="hint muted">
              Only runs that recorded this step match
            </p>
          </div>
          <div>
            <label htmlFor="bulk-version">Version</label>
            <select id="bulk-version" value={form.version} onChange={set('version')}>
              <option value="original">The version each run ran</option>
              <option value="current">The workflow's current version</option>
            </select>
          </div>
        </fieldset>
        <ErrorBox error={error ?? workflows.error} />
        <div className="form-actions">
          <button type="submit" disabled={busy !== undefined}>
            {busy === 'preview' ? 'Counting…' : 'Preview'}
          </button>
          <button
            type="button"
            className="primary"
            disabled={!previewed || preview.total === 0 || busy !== undefined}
            onClick={() => void send(false)}
            aria-describedby="bulk-start-hint"
          >
            {busy === 'start' ? 'Starting…' : previewed ? `Start: replay ${preview.total} ${preview.total === 1 ? 'run' : 'runs'}` : 'Start'}
          </button>
        </div>
        <p id="bulk-start-hint" className="muted">
          {previewed ? 'Starting replays the runs previewed below.' : 'Preview first: Start replays what the preview of this very form matched.'}
        </p>
      </form>
      {preview && (
        <section aria-labelledby="preview-heading" className={previewed ? 'bulk-preview' : 'bulk-preview stale'}>
          <h2 id="preview-heading">Preview</h2>
          {!previewed && <p className="muted">The form changed since this preview: preview again to start.</p>}
          <p role="status">{preview.total === 0 ? 'No ended run matches.' : `${preview.total} ${preview.total === 1 ? 'run matches' : 'runs match'}.`}</p>
          {preview.executionIds.length > 0 && (
            <ul className="bulk-ids" aria-label="Matching runs">
              {preview.executionIds.map((id) => (
                <li key={id}>
                  <Link to={`/runs/${encodeURIComponent(id)}`} className="mono">
                    {id}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          {preview.total > preview.executionIds.length && <p className="muted">The first {preview.executionIds.length} are listed, oldest first.</p>}
        </section>
      )}
    </Page>
  );
}
