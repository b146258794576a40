import type { FieldIssue } from '../errors/errors';
import { cronProblem } from './cron-expression';
import { canonicalTimeZone, timeZoneProblem } from './time-zones';

/** When a schedule fires: a cron expression read in a time zone, or a fixed interval. */
export type ScheduleSpec = { cron: string; timezone: string } | { intervalSeconds: number };

/** A schedule as it is stored and sent to Temporal (the zone's canonical name, the expression trimmed), or what is wrong with it. */
export type CheckedSchedule = { spec: ScheduleSpec; issues: [] } | { spec?: undefined; issues: FieldIssue[] };

/**
 * Checks a schedule against Temporal's rules, each problem naming its field
 * (`schedule.cron`, `schedule.timezone`, `schedule.intervalSeconds`), and
 * gives its canonical form. A cron expression is read as Temporal reads it
 * (see cron-expression.ts) and must be able to fire; a zone is an IANA name,
 * in any case ("europe/paris" becomes "Europe/Paris"). Temporal stays the
 * authority: what it refuses anyway is a 400 too (TriggerSchedules).
 */
export function checkSchedule(spec: ScheduleSpec, minIntervalSeconds: number): CheckedSchedule {
  if ('intervalSeconds' in spec) {
    return spec.intervalSeconds < minIntervalSeconds
      ? { issues: [{ path: 'schedule.intervalSeconds', message: `must be at least ${minIntervalSeconds} seconds (SCHEDULE_MIN_INTERVAL_SECONDS)` }] }
      : { spec, issues: [] };
  }
  const issues: FieldIssue[] = [];
  const timezone = canonicalTimeZone(spec.timezone);
  if (!timezone) issues.push({ path: 'schedule.timezone', message: timeZoneProblem(spec.timezone) });
  const problem = cronProblem(spec.cron);
  if (problem) issues.push({ path: 'schedule.cron', message: problem });
  return timezone && !problem ? { spec: { cron: spec.cron.trim(), timezone }, issues: [] } : { issues };
}
