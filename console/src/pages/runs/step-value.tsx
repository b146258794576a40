import { useState } from 'react';
import { get } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { JsonView } from '../../ui/json-view';
import type { OmittedValue } from './run-model';

const kilobytes = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`);

/**
 * A step's input or output. A value too large to inline arrives as null with
 * where to read it (`omitted`): it is fetched from there only when asked.
 */
export function StepValue({ value, omitted, label }: { value: unknown; omitted?: OmittedValue; label: string }) {
  const [loaded, setLoaded] = useState<{ value: unknown } | undefined>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);

  if (!omitted) return <JsonView value={value} label={label} />;
  if (loaded) return <JsonView value={loaded.value} label={label} />;
  const { href, bytes } = omitted;
  const load = async () => {
    setLoading(true);
    setError(undefined);
    try {
      setLoaded({ value: await get<unknown>(href) });
    } catch (err) {
      setError(err);
    } finally {
      setLoading(false);
    }
  };
  return (
    <div className="omitted-value">
      <p className="muted">Too large to show inline ({kilobytes(bytes)}).</p>
      <button type="button" onClick={() => void load()} disabled={loading} aria-label={`Load ${label} (${kilobytes(bytes)})`}>
        {loading ? 'Loading…' : `Load (${kilobytes(bytes)})`}
      </button>
      <ErrorBox error={error} />
    </div>
  );
}
