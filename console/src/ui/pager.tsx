interface Props {
  offset: number;
  limit: number;
  total: number;
  onChange(offset: number): void;
}

/** Previous/next over an offset-paged list, with where the page sits in the whole. */
export function Pager({ offset, limit, total, onChange }: Props) {
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onChange(Math.max(0, offset - limit))} disabled={offset === 0}>
        Previous
      </button>
      <span>{total === 0 ? 'None' : `${offset + 1}–${last} of ${total}`}</span>
      <button type="button" onClick={() => onChange(offset + limit)} disabled={last >= total}>
        Next
      </button>
    </nav>
  );
}
