import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

/**
 * What a dashboard view is showing, kept in the URL so reload and back/forward
 * return to it: `filter.<id>=<value>` per filter control (absent: the
 * dashboard's default; empty: cleared), `tz` the viewer's time zone, `edit=1`
 * edit mode.
 */
export interface DashboardParams {
  /** Filter id → values the viewer chose (a filter left out keeps its default). */
  chosen: Record<string, string[]>;
  timeZone: string | undefined;
  editing: boolean;
  setFilter(id: string, values: string[] | undefined): void;
  setTimeZone(zone: string | undefined): void;
  setEditing(on: boolean): void;
}

const PREFIX = 'filter.';

/** Filter id → values of a dashboard URL's query (`filter.<id>`; an empty value clears the filter). */
export function chosenFilters(params: URLSearchParams): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of new Set(params.keys())) {
    if (key.startsWith(PREFIX)) out[key.slice(PREFIX.length)] = params.getAll(key).filter((v) => v !== '');
  }
  return out;
}

export function useDashboardParams(): DashboardParams {
  const [params, setParams] = useSearchParams();
  const chosen = useMemo(() => chosenFilters(params), [params]);

  const update = useCallback(
    (change: (next: URLSearchParams) => void) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        change(next);
        return next;
      }),
    [setParams],
  );

  return {
    chosen,
    timeZone: params.get('tz') ?? undefined,
    editing: params.get('edit') === '1',
    setFilter: (id, values) =>
      update((next) => {
        next.delete(PREFIX + id);
        if (values === undefined) return;
        if (values.length === 0) next.set(PREFIX + id, '');
        for (const v of values) next.append(PREFIX + id, v);
      }),
    setTimeZone: (zone) => update((next) => (zone ? next.set('tz', zone) : next.delete('tz'))),
    setEditing: (on) => update((next) => (on ? next.set('edit', '1') : next.delete('edit'))),
  };
}

/** The browser's own zone (what a dashboard with no fixed zone shows by default). */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Zones offered in the switch, beside the dashboard's and the browser's. */
export const COMMON_TIME_ZONES = [
  'UTC',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Sao_Paulo',
  'Europe/London',
  'Europe/Paris',
  'Europe/Berlin',
  'Europe/Moscow',
  'Africa/Johannesburg',
  'Asia/Dubai',
  'Asia/Kolkata',
  'Asia/Singapore',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Pacific/Auckland',
];

/** The zones of the switch: common ones plus any the page must be able to show, sorted, once each. */
export function zoneChoices(...extra: Array<string | null | undefined>): string[] {
  return [...new Set([...COMMON_TIME_ZONES, ...extra.filter((z): z is string => !!z)])].sort();
}
