import { useState } from 'react';
import { Link } from 'react-router';
import { del, get, patch, post, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { StatusBadge } from '../../ui/status-badge';
import { useApi } from '../../ui/use-api';
import { type ScheduleFields, ScheduleTriggerForm } from './schedule-trigger-form';
import type { Environment, EnvironmentList, ScheduleTrigger, ScheduleTriggerList, Workflow } from './workflow-model';

const every = (seconds: number) =>
  seconds % 86_400 === 0
    ? `every ${seconds / 86_400} d`
    : seconds % 3600 === 0
      ? `every ${seconds / 3600} h`
      : seconds % 60 === 0
        ? `every ${seconds / 60} min`
        : `every ${seconds} s`;

export const describeSchedule = (s: ScheduleTrigger['schedule']) => ('cron' in s ? `cron ${s.cron} (${s.timezone})` : every(s.intervalSeconds));

const ENVIRONMENTS = withQuery('/environments', { limit: 1000 });

/** The workflow's schedule triggers, each with its next run times as Temporal plans them; `workflows:admin` adds, edits, pauses and deletes them. */
export function ScheduleTriggers({ workflow }: { workflow: Workflow }) {
  const { can } = useSession();
  const admin = can('workflows:admin');
  const path = withQuery('/schedule-triggers', { workflowId: workflow.id, limit: 1000 });
  const schedules = useApi(path, (signal) => get<ScheduleTriggerList>(path, { signal }));
  const environments = useApi(ENVIRONMENTS, (signal) => get<EnvironmentList>(ENVIRONMENTS, { signal }));
  const [adding, setAdding] = useState(false);
  const envs = environments.data?.data ?? [];

  const create = async (fields: ScheduleFields) => {
    await post<ScheduleTrigger>(`/workflows/${workflow.id}/triggers`, { type: 'schedule', ...fields });
    setAdding(false);
    schedules.reload();
  };

  return (
    <>
      <h2>Schedule triggers</h2>
      <ErrorBox error={schedules.error ?? environments.error} />
      {!schedules.data ? (
        !schedules.error && <p className="page-status">Loading schedules…</p>
      ) : schedules.data.data.length === 0 ? (
        <p className="empty-state">No schedule trigger: nothing starts this workflow on a timer.</p>
      ) : (
        <ul className="trigger-list">
          {schedules.data.data.map((s) => (
            <ScheduleCard key={s.id} trigger={s} admin={admin} environments={envs} onChanged={schedules.reload} />
          ))}
        </ul>
      )}
      {admin &&
        (adding ? (
          <ScheduleTriggerForm
            environments={envs}
            label="New schedule trigger"
            submitLabel="Add schedule trigger"
            save={create}
            onCancel={() => setAdding(false)}
          />
        ) : (
          <p>
            <button type="button" onClick={() => setAdding(true)} disabled={!environments.data && !environments.error}>
              New schedule trigger
            </button>
          </p>
        ))}
    </>
  );
}

interface CardProps {
  trigger: ScheduleTrigger;
  admin: boolean;
  environments: Environment[];
  /** A write succeeded: reload the list (its paused badges, names). */
  onChanged(): void;
}

function ScheduleCard({ trigger, admin, environments, onChanged }: CardProps) {
  const path = `/schedule-triggers/${trigger.id}`;
  const detail = useApi(path, (signal) => get<ScheduleTrigger>(path, { signal }));
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const next = detail.data?.nextRunTimes ?? [];
  const environment = trigger.environmentId ? (environments.find((e) => e.id === trigger.environmentId)?.name ?? trigger.environmentId) : null;

  /** A one-click write (pause, resume, delete): its error shows in the card. A deleted trigger's card goes with the reloaded list. */
  const write = async (action: () => Promise<unknown>, deleting = false) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      if (!deleting) detail.reload();
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const edit = async (fields: ScheduleFields) => {
    await patch<ScheduleTrigger>(path, fields);
    setEditing(false);
    detail.reload();
    onChanged();
  };

  return (
    <li className="trigger-card" aria-label={`Schedule ${trigger.name}`}>
      <div className="trigger-head">
        <h3>{trigger.name}</h3>
        <span className="badge">{describeSchedule(trigger.schedule)}</span>
        {trigger.paused && <span className="badge pending">paused</span>}
        {admin && (
          <span className="trigger-actions">
            <button type="button" disabled={busy} onClick={() => void write(() => patch(path, { paused: !trigger.paused }))}>
              {trigger.paused ? 'Resume' : 'Pause'}
            </button>
            <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
              Edit
            </button>
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </span>
        )}
      </div>
      {confirming && (
        <ConfirmPrompt
          question={`Delete the schedule trigger ${trigger.name}? Its Temporal Schedule goes with it and starts no more runs; runs already started go on.`}
          confirmLabel="Delete schedule trigger"
          busy={busy}
          onConfirm={() => void write(() => del(path), true)}
          onCancel={() => setConfirming(false)}
        />
      )}
      <ErrorBox error={error ?? detail.error} />
      {editing && (
        <ScheduleTriggerForm
          trigger={detail.data ?? trigger}
          environments={environments}
          label={`Edit schedule ${trigger.name}`}
          submitLabel="Save schedule"
          save={edit}
          onCancel={() => setEditing(false)}
        />
      )}
      <p>
        <strong>Next runs:</strong>{' '}
        {detail.loading && !detail.data ? (
          'loading…'
        ) : next.length === 0 ? (
          <span className="muted">{trigger.paused ? 'none while paused' : 'none planned'}</span>
        ) : (
          next.map((t) => formatTime(t)).join(' · ')
        )}
      </p>
      <p className="muted">
        Runs in {environment ? <code>{environment}</code> : 'the workflow’s default environment'}; a run due while the previous one is still going:{' '}
        {trigger.overlapPolicy === 'skip' ? 'skipped' : trigger.overlapPolicy === 'buffer_one' ? 'one waits to run after' : 'runs at once too'}.
      </p>
      {detail.data?.paused && detail.data.note && <p className="muted">{detail.data.note}</p>}
      {(detail.data?.lastRuns?.length ?? 0) > 0 && (
        <p>
          <strong>Last runs:</strong>{' '}
          {detail.data!.lastRuns!.map((r) => (
            <span key={r.id} className="last-run">
              <StatusBadge status={r.status} /> <Link to={`/runs/${encodeURIComponent(r.id)}`}>{formatTime(r.startedAt)}</Link>
            </span>
          ))}
        </p>
      )}
    </li>
  );
}
