import { ApiError } from '../api/client';

/** An API error as a person reads it: the message, the fields it names, and the request id to quote. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  return (
    <div role="alert" className="error-box">
      <p>{error instanceof Error ? error.message : String(error)}</p>
      {apiError && apiError.details.length > 0 && (
        <ul>
          {apiError.details.map((d, i) => (
            <li key={i}>
              <code>{d.path}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      {apiError?.requestId && <p className="muted">Request {apiError.requestId}</p>}
    </div>
  );
}
