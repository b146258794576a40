import { Link } from 'react-router';
import { get, withQuery } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { StatusBadge } from '../../ui/status-badge';
import { useApi } from '../../ui/use-api';
import type { ScheduleTrigger, ScheduleTriggerList, Workflow } from './workflow-model';

const every = (seconds: number) =>
  seconds % 86_400 === 0
    ? `every ${seconds / 86_400} d`
    : seconds % 3600 === 0
      ? `every ${seconds / 3600} h`
      : seconds % 60 === 0
        ? `every ${seconds / 60} min`
        : `every ${seconds} s`;

const describe = (s: ScheduleTrigger['schedule']) => ('cron' in s ? `cron ${s.cron} (${s.timezone})` : every(s.intervalSeconds));

/** The workflow's schedule triggers, each with its next run times as Temporal plans them. */
export function ScheduleTriggers({ workflow }: { workflow: Workflow }) {
  const path = withQuery('/schedule-triggers', { workflowId: workflow.id, limit: 1000 });
  const schedules = useApi(path, (signal) => get<ScheduleTriggerList>(path, { signal }));
  return (
    <>
      <h2>Schedule triggers</h2>
      <ErrorBox error={schedules.error} />
      {!schedules.data ? (
        !schedules.error && <p className="page-status">Loading schedules…</p>
      ) : schedules.data.data.length === 0 ? (
        <p className="empty-state">No schedule trigger. Schedules are added through the API (POST /workflows/&#123;id&#125;/triggers with type “schedule”).</p>
      ) : (
        <ul className="trigger-list">
          {schedules.data.data.map((s) => (
            <ScheduleCard key={s.id} trigger={s} />
          ))}
        </ul>
      )}
    </>
  );
}

function ScheduleCard({ trigger }: { trigger: ScheduleTrigger }) {
  const path = `/schedule-triggers/${trigger.id}`;
  const detail = useApi(path, (signal) => get<ScheduleTrigger>(path, { signal }));
  const next = detail.data?.nextRunTimes ?? [];
  return (
    <li className="trigger-card" aria-label={`Schedule ${trigger.name}`}>
      <div className="trigger-head">
        <h3>{trigger.name}</h3>
        <span className="badge">{describe(trigger.schedule)}</span>
        {trigger.paused && <span className="badge pending">paused</span>}
      </div>
      <ErrorBox error={detail.error} />
      <p>
        <strong>Next runs:</strong>{' '}
        {detail.loading && !detail.data ? (
          'loading…'
        ) : next.length === 0 ? (
          <span className="muted">none planned</span>
        ) : (
          next.map((t) => formatTime(t)).join(' · ')
        )}
      </p>
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
