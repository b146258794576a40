/** A JSON value as indented text; long values scroll inside their box. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}
