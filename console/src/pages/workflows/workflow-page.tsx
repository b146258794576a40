import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { get } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { DefinitionTab } from './definition-tab';
import { prefetchDraft } from './draft/use-draft';
import { TestRunTab } from './test-run-tab';
import { TriggersTab } from './triggers-tab';
import { VersionsTab } from './versions-tab';
import type { Workflow } from './workflow-model';
import { WorkflowSettingsTab } from './workflow-settings-tab';

const TABS = [
  { id: 'definition', label: 'Definition' },
  { id: 'triggers', label: 'Triggers' },
  { id: 'test', label: 'Test run' },
  { id: 'versions', label: 'Versions' },
  { id: 'settings', label: 'Settings' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** One workflow: its definition, triggers, a test run, its versions and settings, each a tab named in the URL (`?tab=`). */
export function WorkflowPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tab: TabId = TABS.find((t) => t.id === params.get('tab'))?.id ?? 'definition';
  const path = `/workflows/${encodeURIComponent(id)}`;
  const workflow = useApi(path, (signal) => get<Workflow>(path, { signal }));
  const current = workflow.data?.id === id ? workflow.data : undefined;
  const admin = useSession().can('workflows:admin');
  // An editor's draft is read beside the workflow, not after it.
  useEffect(() => {
    if (admin && tab === 'definition') prefetchDraft(id);
  }, [admin, id, tab]);

  if (!current) {
    return (
      <Page title="Workflow">
        {workflow.error && !workflow.loading ? <ErrorBox error={workflow.error} /> : <p className="page-status">Loading workflow…</p>}
        <p>
          <Link to="/workflows">All workflows</Link>
        </p>
      </Page>
    );
  }

  const select = (next: TabId) => setParams(next === 'definition' ? {} : { tab: next });
  return (
    <Page
      title={current.name}
      subtitle={
        <>
          <Link to="/workflows">Workflows</Link> / version {current.version} · updated {formatTime(current.updatedAt)} ·{' '}
          <Link to={`/runs?workflowId=${current.id}`}>Runs</Link>
        </>
      }
    >
      <div role="tablist" aria-label="Workflow" className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => select(t.id)}
            onKeyDown={(e) => {
              const at = TABS.findIndex((x) => x.id === tab);
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (step) select(TABS[(at + step + TABS.length) % TABS.length].id);
            }}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'definition' && <DefinitionTab workflow={current} onSaved={workflow.reload} />}
        {tab === 'triggers' && <TriggersTab workflow={current} />}
        {tab === 'test' && <TestRunTab workflow={current} />}
        {tab === 'versions' && <VersionsTab workflow={current} />}
        {tab === 'settings' && <WorkflowSettingsTab workflow={current} onSaved={workflow.reload} />}
      </div>
    </Page>
  );
}
