import { useSearchParams } from 'react-router';
import { get, withQuery } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import { Pager } from '../../ui/pager';
import { ScrollBox } from '../../ui/scroll-box';
import { useApi } from '../../ui/use-api';
import type { VersionList, Workflow, WorkflowVersion } from './workflow-model';

const PAGE_SIZE = 20;

/** Every saved version, newest first; one opens (`?version=`) to its definition. */
export function VersionsTab({ workflow }: { workflow: Workflow }) {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const selected = Number(params.get('version') ?? 0) || undefined;
  const path = withQuery(`/workflows/${workflow.id}/versions`, { limit: PAGE_SIZE, offset });
  const versions = useApi(path, (signal) => get<VersionList>(path, { signal }));
  const shown = selected ? `/workflows/${workflow.id}/versions/${selected}` : null;
  const version = useApi(shown, (signal) => get<WorkflowVersion>(shown!, { signal }));

  const go = (changes: Record<string, string | undefined>) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      for (const [k, v] of Object.entries(changes)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      return next;
    });

  return (
    <div className="versions">
      <ErrorBox error={versions.error} />
      {!versions.data ? (
        !versions.error && <p className="page-status">Loading versions…</p>
      ) : (
        <ScrollBox label="Versions">
          <table className="list">
            <thead>
              <tr>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Saved</th>
                <th scope="col">By</th>
                <th scope="col">Steps</th>
                <th scope="col">
                  <span className="visually-hidden">View</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.data.data.map((v) => (
                <tr key={v.version} aria-current={v.version === selected ? 'true' : undefined} className={v.version === selected ? 'selected' : undefined}>
                  <td className="num">
                    {v.version}
                    {v.version === workflow.version && <span className="badge succeeded current-badge">current</span>}
                  </td>
                  <td>{formatTime(v.createdAt)}</td>
                  <td className="mono muted">{v.createdBy.slice(0, 8)}</td>
                  <td>{v.definition.steps.map((s) => s.stepId).join(', ')}</td>
                  <td>
                    <button type="button" className="link-button" onClick={() => go({ version: String(v.version) })}>
                      View version {v.version}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {versions.data && versions.data.total > PAGE_SIZE && (
        <Pager offset={offset} limit={PAGE_SIZE} total={versions.data.total} onChange={(o) => go({ offset: o ? String(o) : undefined })} />
      )}
      {selected && (
        <section aria-labelledby="version-heading">
          <h2 id="version-heading">Definition of version {selected}</h2>
          <ErrorBox error={version.error} />
          {version.data?.version === selected ? (
            <JsonView value={version.data.definition} label={`Definition of version ${selected}`} />
          ) : (
            !version.error && <p className="page-status">Loading…</p>
          )}
        </section>
      )}
    </div>
  );
}
