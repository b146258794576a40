import { CronExpressionParser } from 'cron-parser';
import type { FieldIssue } from '../errors/errors';

/** When a schedule fires: a cron expression read in a time zone, or a fixed interval. */
export type ScheduleSpec = { cron: string; timezone: string } | { intervalSeconds: number };

/**
 * Problems with a schedule, each naming its field (`schedule.cron`,
 * `schedule.timezone`, `schedule.intervalSeconds`). A cron expression has
 * exactly five fields (minute, hour, day of month, month, day of week): no
 * seconds, no `@daily` macros, no `CRON_TZ=` prefix (the zone is its own
 * field), and it must be able to fire. A zone is an IANA name the runtime
 * knows (`Europe/Paris`, `UTC`).
 */
export function scheduleProblems(spec: ScheduleSpec, minIntervalSeconds: number): FieldIssue[] {
  if ('intervalSeconds' in spec) {
    return spec.intervalSeconds < minIntervalSeconds
      ? [{ path: 'schedule.intervalSeconds', message: `must be at least ${minIntervalSeconds} seconds (SCHEDULE_MIN_INTERVAL_SECONDS)` }]
      : [];
  }
  const issues: FieldIssue[] = [];
  if (!isIanaZone(spec.timezone))
    issues.push({ path: 'schedule.timezone', message: `"${spec.timezone}" is not an IANA time zone such as Europe/Paris or UTC` });
  const fields = spec.cron.trim().split(/\s+/);
  if (fields.length !== 5 || /[@=]/.test(spec.cron)) {
    issues.push({ path: 'schedule.cron', message: 'must have exactly 5 fields: minute hour day-of-month month day-of-week (such as "0 9 * * MON-FRI")' });
    return issues;
  }
  try {
    CronExpressionParser.parse(spec.cron, { tz: issues.length ? 'UTC' : spec.timezone }).next();
  } catch (err) {
    issues.push({ path: 'schedule.cron', message: `is not a valid cron expression: ${(err as Error).message}` });
  }
  return issues;
}

/** True for a zone name of the IANA database as the runtime has it (links such as US/Eastern included); offsets such as "+02:00" are not zones. */
export function isIanaZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  if (zone === 'UTC') return true;
  return supportedZones().has(zone) || canonicalZone(zone) !== undefined;
}

let zones: Set<string> | undefined;
function supportedZones(): Set<string> {
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return zones;
}

/** A link name (`US/Eastern`) resolves to its canonical zone; an unknown name throws. */
function canonicalZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
