import { type ComponentType, lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Shell } from './layout/shell';
import { NotFoundPage } from './layout/not-found-page';
import { InvitationPage } from './session/invitation-page';
import { JoinedPage } from './session/joined-page';

/**
 * An area's chunk, lazily. The area of the address the app opens at starts
 * downloading at once, beside GET /session, and is drawn without a Suspense
 * fallback once here (React holds a boundary's content back for up to 300 ms
 * after its fallback showed).
 */
function area(name: string, load: () => Promise<{ default: ComponentType }>): ComponentType {
  let loaded: ComponentType | undefined;
  let pending: ReturnType<typeof load> | undefined;
  const loadOnce = () =>
    (pending ??= load().then((m) => {
      loaded = m.default;
      return m;
    }));
  const Lazy = lazy(loadOnce);
  if (window.location.pathname.split('/')[2] === name) void loadOnce().catch(() => undefined);
  return function Area() {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  };
}

// Each area is its own chunk: a first visit downloads the shell and the page it opens, nothing else.
const RunsArea = area('runs', () => import('./pages/runs/runs-area'));
const WorkflowsArea = area('workflows', () => import('./pages/workflows/workflows-area'));
const DashboardsArea = area('dashboards', () => import('./pages/dashboards/dashboards-area'));
const DataArea = area('data', () => import('./pages/data/data-area'));
const SettingsArea = area('settings', () => import('./pages/settings/settings-area'));

export function App() {
  return (
    <Shell>
      <Suspense fallback={<p className="page-status">Loading…</p>}>
        <Routes>
          <Route index element={<Navigate to="/runs" replace />} />
          <Route path="invitations/joined" element={<JoinedPage />} />
          <Route path="invitations/:code" element={<InvitationPage />} />
          <Route path="runs/*" element={<RunsArea />} />
          <Route path="workflows/*" element={<WorkflowsArea />} />
          <Route path="dashboards/*" element={<DashboardsArea />} />
          <Route path="data/*" element={<DataArea />} />
          <Route path="settings/*" element={<SettingsArea />} />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </Shell>
  );
}
