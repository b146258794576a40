import { Fragment, type ReactNode } from 'react';
import { ErrorBox } from './error-box';
import { Pager } from './pager';
import { ScrollBox } from './scroll-box';

/** A column's header; `hidden` keeps its label for screen readers only (an actions column). */
export interface ListColumn {
  label: ReactNode;
  numeric?: boolean;
  hidden?: boolean;
}

export interface ListPaging {
  offset: number;
  limit: number;
  total: number;
  onChange(offset: number): void;
}

interface Props<T> {
  /** The request's state, as useApi answers it: its error is shown above the list. */
  state: { error: unknown; loading: boolean };
  /** The rows; undefined until the first answer (or when nothing is requested). */
  items: readonly T[] | undefined;
  /** What shows while the first answer is awaited: "Loading workflows…". */
  loadingText: string;
  /** What shows for an empty list (a sentence, or paragraphs). */
  empty: ReactNode;
  columns: ListColumn[];
  rowKey(item: T): string;
  /** The row (a `<tr>`, or a row with its detail row). */
  row(item: T): ReactNode;
  /** More classes for the table beside `list`. */
  className?: string;
  /** A caption for screen readers. */
  caption?: string;
  paging?: ListPaging;
}

/**
 * The list pages' one pattern: the request's error, "Loading…" until the first answer, the empty state, the
 * table (dimmed while a newer answer is awaited; in a box that scrolls sideways when the table is wider than the
 * screen), and previous/next when the list spans more than one page.
 */
export function ListView<T>({ state, items, loadingText, empty, columns, rowKey, row, className, caption, paging }: Props<T>) {
  const paged = paging !== undefined && (paging.total > paging.limit || paging.offset > 0);
  return (
    <>
      <ErrorBox error={state.error} />
      {items === undefined ? (
        state.loading && !state.error && <p className="page-status">{loadingText}</p>
      ) : items.length === 0 && !paged ? (
        typeof empty === 'string' ? (
          <p className="empty-state">{empty}</p>
        ) : (
          <div className="empty-state">{empty}</div>
        )
      ) : (
        items.length > 0 && (
          <ScrollBox label={caption ?? 'List'}>
            <table className={className ? `list ${className}` : 'list'} aria-busy={state.loading}>
              {caption && <caption className="visually-hidden">{caption}</caption>}
              <thead>
                <tr>
                  {columns.map((column, i) => (
                    <th key={i} scope="col" className={column.numeric ? 'num' : undefined}>
                      {column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <Fragment key={rowKey(item)}>{row(item)}</Fragment>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        )
      )}
      {items !== undefined && paged && <Pager offset={paging.offset} limit={paging.limit} total={paging.total} onChange={paging.onChange} />}
    </>
  );
}
