/** The badge class of a run or step status: green when it completed, red when it ended otherwise, amber while it runs. */
const TONE: Record<string, string> = {
  completed: 'succeeded',
  succeeded: 'succeeded',
  running: 'running',
  waiting: 'pending',
  pending: 'pending',
  failed: 'failed',
  cancelled: 'failed',
  terminated: 'failed',
  timed_out: 'failed',
};

const LABEL: Record<string, string> = { timed_out: 'timed out' };

/** A run's or a step's status as a coloured badge whose text says the status (colour is never the only cue). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${TONE[status] ?? ''}`}>{LABEL[status] ?? status}</span>;
}
