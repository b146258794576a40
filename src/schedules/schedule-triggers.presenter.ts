import type { TriggerRun } from './schedule-triggers.repository';
import type { ScheduleTrigger } from './schedule-trigger.entity';
import type { ScheduleState } from './trigger-schedules';
import { triggerScheduleId } from '../../workflows/scheduled-run.types';

/** A schedule trigger as the API shows it; a single read adds what Temporal says and its last runs. */
export function presentScheduleTrigger(t: ScheduleTrigger, detail?: { state?: ScheduleState; lastRuns: TriggerRun[] }) {
  return {
    id: t.id,
    suid: t.suid,
    organizationId: t.organizationId,
    workflowId: t.workflowId,
    type: 'schedule' as const,
    name: t.name,
    schedule: t.cron ? { cron: t.cron, timezone: t.timezone } : { intervalSeconds: t.intervalSeconds! },
    initial: t.initial,
    environmentId: t.environmentId,
    overlapPolicy: t.overlapPolicy,
    catchupWindowSeconds: t.catchupWindowSeconds,
    paused: t.paused,
    temporalScheduleId: triggerScheduleId(t.id),
    ...(detail
      ? {
          nextRunTimes: (detail.state?.nextRunTimes ?? []).map((d) => d.toISOString()),
          lastRuns: detail.lastRuns.map((r) => ({
            id: r.id,
            status: r.status,
            startedAt: r.startedAt.toISOString(),
            finishedAt: r.finishedAt?.toISOString() ?? null,
          })),
          note: detail.state?.note ?? null,
        }
      : {}),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
