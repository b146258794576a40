import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** True until the answer for the current key (and generation) arrives; the previous data stays shown meanwhile. */
  loading: boolean;
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
  const [state, setState] = useState<{ data?: T; error?: unknown; answered?: string }>({});
  const [generation, setGeneration] = useState(0);
  const loadRef = useLatest(load);
  const request = key === null ? null : `${generation}:${key}`;

  useEffect(() => {
    if (request === null) return;
    const controller = new AbortController();
    loadRef.current(controller.signal).then(
      (data) => {
        // A request superseded by a newer key must not overwrite the newer answer.
        if (!controller.signal.aborted) setState({ data, answered: request });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error, answered: request }));
      },
    );
    return () => controller.abort();
  }, [request, loadRef]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: request !== null && state.answered !== request, reload };
}

/** Calls `tick` every `ms` while `active`; used to refresh lists while runs are in flight. */
export function useInterval(tick: () => void, ms: number, active: boolean): void {
  const tickRef = useLatest(tick);
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => tickRef.current(), ms);
    return () => clearInterval(id);
  }, [ms, active, tickRef]);
}
