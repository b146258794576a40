import { useEffect, useState } from 'react';

/** `value` once it has stayed the same for `ms`: typing or ticking boxes in a row makes one request, not one per change. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
