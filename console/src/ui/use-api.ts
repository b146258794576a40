import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (after a write, or on a timer). */
  reload(): void;
}

/**
 * Loads what `load` answers whenever `key` changes, cancelling the request
 * that was in flight. `key` is whatever the request depends on (a path with
 * its query), so a filter change is one new request, never two racing.
 */
export function useApi<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: key !== null });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(controller.signal).then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `tick` every `ms` while `active`; used to refresh lists while runs are in flight. */
export function useInterval(tick: () => void, ms: number, active: boolean): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => tickRef.current(), ms);
    return () => clearInterval(id);
  }, [ms, active]);
}
