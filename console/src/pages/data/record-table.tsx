import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import type { DataRecord } from './data-types';
import { cellText, type Column, inferColumns, TYPE_LABEL } from './record-columns';
import './tables.css';

/** Past this many columns the table would be unreadable; the rest are a click away in each row's JSON. */
const MAX_COLUMNS = 12;

interface Props {
  table: string;
  records: DataRecord[];
  busy: boolean;
  /** The table page's filters, handed to the record page so its way back keeps them. */
  search: string;
}

/**
 * A page of records as columns inferred from their values (top-level keys,
 * typed), the key linking to the record's page, and each row's raw JSON
 * opened in place. The table scrolls inside its box on a narrow screen, the
 * key column staying in view.
 */
export function RecordTable({ table, records, busy, search }: Props) {
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const all = inferColumns(records.map((r) => r.value));
  const columns = all.slice(0, MAX_COLUMNS);
  const toggle = (key: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const span = columns.length + 3;
  return (
    <>
      {all.length > columns.length && (
        <p className="muted">
          Showing {columns.length} of {all.length} fields; expand a row for all of its value.
        </p>
      )}
      <div className="table-scroll records-scroll" tabIndex={0} role="region" aria-label={`Records of ${table}`}>
        <table className="list records" aria-busy={busy}>
          <thead>
            <tr>
              <th scope="col" className="record-key">
                Key
              </th>
              {columns.map((c) => (
                <th key={c.name} scope="col" className={c.type === 'number' ? 'num' : undefined} data-type={c.type}>
                  {c.name} <span className="column-type">{TYPE_LABEL[c.type]}</span>
                </th>
              ))}
              <th scope="col">Updated</th>
              <th scope="col">
                <span className="visually-hidden">JSON</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => {
              const open = expanded.has(r.key);
              return (
                <Fragment key={r.key}>
                  <tr data-key={r.key}>
                    <th scope="row" className="record-key">
                      <Link to={`/data/tables/${encodeURIComponent(table)}/records/${encodeURIComponent(r.key)}`} state={{ tableSearch: search }}>
                        {r.key}
                      </Link>
                    </th>
                    {columns.map((c) => (
                      <Cell key={c.name} column={c} value={r.value[c.name]} />
                    ))}
                    <td className="nowrap">{formatTime(r.updatedAt)}</td>
                    <td>
                      <button
                        type="button"
                        className="link-button nowrap"
                        aria-expanded={open}
                        aria-label={`${open ? 'Collapse' : 'Expand'} ${r.key}`}
                        onClick={() => toggle(r.key)}
                      >
                        {open ? 'Collapse' : 'Expand'}
                      </button>
                    </td>
                  </tr>
                  {open && (
                    <tr className="record-json">
                      <td colSpan={span}>
                        <JsonView value={r.value} label={`Value of ${r.key}`} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Cell({ column, value }: { column: Column; value: unknown }) {
  const text = cellText(value);
  if (value === undefined) return <td className="absent" />;
  if (value === null) return <td className="null">null</td>;
  if (typeof value === 'object') {
    return (
      <td className="object">
        <code>{text}</code>
      </td>
    );
  }
  return <td className={typeof value === 'number' && column.type === 'number' ? 'num' : typeof value === 'boolean' ? 'bool' : undefined}>{text}</td>;
}
