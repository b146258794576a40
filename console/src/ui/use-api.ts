import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** True until the answer for the current key (and generation) arrives; the previous data stays shown meanwhile. */
  loading: boolean;
  /** True while the shown data is being loaded again for the same key (a reload, a poll), not for a new one. */
  refreshing: boolean;
  /** Loads again (after a write, or on a timer). */
  reload(): void;
}

/** `fn` as of the last render, for effects and timers that must not restart when it changes. */
function useLatest<T>(fn: T) {
  const ref = useRef(fn);
  useLayoutEffect(() => {
    ref.current = fn;
  });
  return ref;
}

/**
 * Loads what `load` answers whenever `key` changes, cancelling the request
 * that was in flight. `key` is whatever the request depends on (a path with
 * its query), so a filter change is one new request, never two racing; null
 * loads nothing.
 */
export function useApi<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; answered?: string; answeredKey?: string }>({});
  const [generation, setGeneration] = useState(0);
  const loadRef = useLatest(load);
  const request = key === null ? null : `${generation}:${key}`;

  useEffect(() => {
    if (request === null) return;
    const controller = new AbortController();
    // The generation is a number: the key is all after the first colon.
    const answeredKey = request.slice(request.indexOf(':') + 1);
    loadRef.current(controller.signal).then(
      (data) => {
        // A request superseded by a newer key must not overwrite the newer answer.
        if (!controller.signal.aborted) setState({ data, answered: request, answeredKey });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error, answered: request, answeredKey }));
      },
    );
    return () => controller.abort();
  }, [request, loadRef]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const loading = request !== null && state.answered !== request;
  return { data: state.data, error: state.error, loading, refreshing: loading && state.answeredKey === key, reload };
}

/** Calls `tick` every `ms` while `active`; used to refresh lists while runs are in flight. */
function useInterval(tick: () => void, ms: number, active: boolean): void {
  const tickRef = useLatest(tick);
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => tickRef.current(), ms);
    return () => clearInterval(id);
  }, [ms, active, tickRef]);
}

const subscribeVisibility = (onChange: () => void) => {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
};

/** Whether the page is in view (not a background tab, not a minimised window). */
function usePageVisible(): boolean {
  return useSyncExternalStore(subscribeVisibility, () => document.visibilityState === 'visible');
}

/**
 * Calls `tick` every `ms` while `active` and the page is in view: a hidden tab asks the server nothing, and
 * catches up with one call as soon as it is shown again. Pass `active` false while a request is in flight, so
 * that ticks never pile up on a slow server (the pause then runs from each answer).
 */
export function usePolling(tick: () => void, ms: number, active: boolean): void {
  const visible = usePageVisible();
  const tickRef = useLatest(tick);
  const wasVisible = useRef(visible);
  useEffect(() => {
    if (visible && !wasVisible.current && active) tickRef.current();
    wasVisible.current = visible;
  }, [visible, active, tickRef]);
  useInterval(tick, ms, active && visible);
}
