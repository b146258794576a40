import type { SyncStatus } from './data-types';

const LABELS: Record<SyncStatus, { text: string; className: string }> = {
  running: { text: 'Syncing', className: 'running' },
  success: { text: 'Synced', className: 'succeeded' },
  failed: { text: 'Sync failed', className: 'failed' },
};

/** The state of a feed source's last sync as a badge; "Never synced" before the first. */
export function SyncBadge({ status }: { status: SyncStatus | null }) {
  if (!status) return <span className="muted">Never synced</span>;
  const { text, className } = LABELS[status];
  return <span className={`badge ${className}`}>{text}</span>;
}
