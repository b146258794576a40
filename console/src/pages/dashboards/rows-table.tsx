import type { WidgetView } from '@charts/index';

type TableView = Extract<WidgetView, { kind: 'table' }>;

interface Props {
  view: TableView;
  /** The region's accessible name (the tile's title, or what the rows preview). */
  label: string;
  className?: string;
  /** At most this many rows drawn, with a line saying how many there are. */
  maxRows?: number;
}

/** A table view's rows (src/dashboards/charts): a table tile, and the query builder's preview of the rows. */
export function RowsTable({ view, label, className, maxRows }: Props) {
  const rows = maxRows === undefined ? view.rows : view.rows.slice(0, maxRows);
  const alignOf = (j: number) => (view.columns[j].align === 'right' ? 'num' : undefined);
  return (
    <div className={className ? `tile-table ${className}` : 'tile-table'} tabIndex={0} role="region" aria-label={label}>
      <table className="list">
        <thead>
          <tr>
            {view.columns.map((c, j) => (
              <th key={c.key} scope="col" className={alignOf(j)}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {row.map((cell, j) => (
                <td key={j} className={alignOf(j)}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length < view.rows.length && (
        <p className="muted">
          The first {rows.length} of {view.rows.length.toLocaleString()} rows
        </p>
      )}
    </div>
  );
}
