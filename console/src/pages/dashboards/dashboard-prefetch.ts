import { ApiError, get, post } from '../../api/client';
import type { Dashboard, DashboardData } from './dashboard-api';
import { browserTimeZone, chosenFilters } from './dashboard-params';

/**
 * The two calls a dashboard view starts with (GET /dashboards/{id}, POST
 * /dashboards/{id}/data), started as soon as the route is entered: in this
 * light chunk, while the heavy dashboard page (ECharts, the grid) is still
 * downloading and evaluating. The page takes each one once, when its own
 * request is exactly the same (same id, same body); anything else (a filter
 * changed, a reload, a later visit) fetches as usual. An answer nobody took
 * within a few seconds is dropped.
 */

/** How long a prefetched call waits to be taken: enough for the page's chunk on a slow connection. */
const KEEP_MS = 10_000;

interface Entry {
  key: string;
  promise: Promise<unknown>;
  /** It was refused as unauthenticated (started before a sign-in): the page, signed in since, fetches for itself. */
  unauthorized?: boolean;
  controller: AbortController;
  timer: ReturnType<typeof setTimeout>;
}

/** At most one waiting call per kind and dashboard. */
const waiting = new Map<string, Entry>();

const slot = (kind: 'dashboard' | 'data', id: string) => `${kind}:${id}`;

/** The body of the data call, as DashboardPage sends it (dashboard-page.tsx `dataBody`), for a URL's query. */
export function dataBodyOf(filters: Record<string, string[]>, timeZone: string | undefined) {
  return { filters, timezone: timeZone ?? browserTimeZone() };
}

function start(name: string, key: string, load: (signal: AbortSignal) => Promise<unknown>) {
  const existing = waiting.get(name);
  if (existing?.key === key) return;
  if (existing) drop(name, existing);
  const controller = new AbortController();
  const promise = load(controller.signal);
  const entry: Entry = { key, promise, controller, timer: setTimeout(() => drop(name, entry), KEEP_MS) };
  // Whoever takes it handles its failure; one nobody takes must not be an unhandled rejection.
  promise.catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 401) entry.unauthorized = true;
  });
  waiting.set(name, entry);
}

function drop(name: string, entry: Entry) {
  clearTimeout(entry.timer);
  if (waiting.get(name) === entry) waiting.delete(name);
  entry.controller.abort();
}

/**
 * Starts both calls for /dashboards/{id}?{search} (the filters and zone of the
 * URL). A call already waiting for the same request is kept, not repeated.
 */
export function prefetchDashboard(id: string, search: string): void {
  const body = dataBodyOf(chosenFilters(new URLSearchParams(search)), new URLSearchParams(search).get('tz') ?? undefined);
  start(slot('dashboard', id), id, (signal) => get<Dashboard>(`/dashboards/${id}`, { signal }));
  start(slot('data', id), JSON.stringify(body), (signal) => post<DashboardData>(`/dashboards/${id}/data`, body, { signal }));
}

/** Cancels what was started for a dashboard and not taken (the view was left before its page came). */
export function forgetDashboard(id: string): void {
  for (const name of [slot('dashboard', id), slot('data', id)]) {
    const entry = waiting.get(name);
    if (entry) drop(name, entry);
  }
}

/**
 * The waiting call for this request, once: later calls (and other requests)
 * get undefined and fetch themselves. Aborting `signal` aborts the call, as it
 * would a fetch of the caller's own.
 */
function take<T>(name: string, key: string, signal: AbortSignal): Promise<T> | undefined {
  const entry = waiting.get(name);
  if (!entry) return undefined;
  if (entry.key !== key || entry.unauthorized) {
    // Another request for the same dashboard: the waiting answer will never be wanted.
    drop(name, entry);
    return undefined;
  }
  clearTimeout(entry.timer);
  waiting.delete(name);
  if (signal.aborted) {
    entry.controller.abort();
    return Promise.reject(signal.reason as Error);
  }
  signal.addEventListener('abort', () => entry.controller.abort(), { once: true });
  // Settled by the caller's abort too, like the caller's own fetch would be (even if the answer is already in).
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    (entry.promise as Promise<T>).then(resolve, reject);
  });
}

/** GET /dashboards/{id}: the prefetched answer if one waits, else a fetch. */
export function loadDashboard(id: string, signal: AbortSignal): Promise<Dashboard> {
  return take<Dashboard>(slot('dashboard', id), id, signal) ?? get<Dashboard>(`/dashboards/${id}`, { signal });
}

/** POST /dashboards/{id}/data with this body: the prefetched answer if one waits for exactly it, else a fetch. */
export function loadDashboardData(id: string, body: ReturnType<typeof dataBodyOf>, signal: AbortSignal): Promise<DashboardData> {
  return take<DashboardData>(slot('data', id), JSON.stringify(body), signal) ?? post<DashboardData>(`/dashboards/${id}/data`, body, { signal });
}
