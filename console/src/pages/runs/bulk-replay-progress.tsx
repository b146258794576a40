import { Link } from 'react-router';
import { StatusBadge } from '../../ui/status-badge';
import { ScrollBox } from '../../ui/scroll-box';
import type { BulkReplayProgress } from './run-model';

const STATUS_LABEL = { pending: 'waiting to start', started: 'started', failed: 'could not start' } as const;

/** A bulk replay's progress: counts, a bar, and each selected run beside its replay (a link once started). */
export function BulkProgress({ bulk }: { bulk: BulkReplayProgress }) {
  const done = bulk.started + bulk.failed;
  return (
    <>
      <dl className="run-facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={bulk.status === 'completed' ? 'completed' : 'running'} />
          </dd>
        </div>
        <div>
          <dt>From step</dt>
          <dd>{bulk.fromStepId}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{bulk.version}</dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd>
            {bulk.started} started · {bulk.failed} failed to start · {bulk.total} selected
          </dd>
        </div>
      </dl>
      <p>
        <label htmlFor="bulk-progress">Progress</label>{' '}
        <progress id="bulk-progress" max={Math.max(1, bulk.total)} value={done}>
          {done} of {bulk.total}
        </progress>{' '}
        <span role="status">
          {done} of {bulk.total} {bulk.status === 'completed' ? '— done' : '— refreshing…'}
        </span>
      </p>
      <ScrollBox label="Runs of the bulk replay">
        <table className="list bulk-runs">
          <caption className="visually-hidden">Runs of the bulk replay</caption>
          <thead>
            <tr>
              <th scope="col">Original run</th>
              <th scope="col">Replay</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {bulk.executions.map((item) => (
              <tr key={item.originalId}>
                <td>
                  <Link to={`/runs/${encodeURIComponent(item.originalId)}`} className="mono">
                    {item.originalId}
                  </Link>
                </td>
                <td>
                  {item.status === 'started' ? (
                    <Link to={`/runs/${encodeURIComponent(item.executionId)}`} className="mono">
                      {item.executionId}
                    </Link>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td>
                  {STATUS_LABEL[item.status]}
                  {item.error && <span className="muted">: {item.error}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}
