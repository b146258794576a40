import { get } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { ScrollBox } from '../../ui/scroll-box';
import { useApi } from '../../ui/use-api';
import type { MetaList } from '../dashboards/dashboard-api';
import type { DataSource } from './data-types';

/**
 * What a built-in source can chart beyond its summed fields (run counts, failures and their rate, average, p50
 * and p95 durations), as the analytics meta lists them: the query builder offers the same.
 */
export function BuiltInMeasures({ source }: { source: DataSource }) {
  const meta = useApi('source-meta', (signal) => get<MetaList>('/dashboards/analytics/meta', { signal }));
  const entry = meta.data?.find((e) => e.name === source.servingRelation);
  return (
    <section aria-labelledby="measures-heading">
      <h2 id="measures-heading">Measures</h2>
      <ErrorBox error={meta.error} />
      {!meta.data && !meta.error && <p className="page-status">Loading measures…</p>}
      {entry && (
        <ScrollBox label="Measures">
          <table className="list fields" aria-labelledby="measures-heading">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
              </tr>
            </thead>
            <tbody>
              {entry.measures.map((m) => (
                <tr key={m.name}>
                  <th scope="row">
                    <code>{m.name.slice(entry.name.length + 1)}</code>
                  </th>
                  <td>{m.title}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}
