import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Shell } from './layout/shell';
import { NotFoundPage } from './layout/not-found-page';
import { InvitationPage } from './session/invitation-page';

// Each area is its own chunk: a first visit downloads the shell and the page it opens, nothing else.
const RunsArea = lazy(() => import('./pages/runs/runs-area'));
const WorkflowsArea = lazy(() => import('./pages/workflows/workflows-area'));
const DashboardsArea = lazy(() => import('./pages/dashboards/dashboards-area'));
const DataArea = lazy(() => import('./pages/data/data-area'));
const SettingsArea = lazy(() => import('./pages/settings/settings-area'));

export function App() {
  return (
    <Shell>
      <Suspense fallback={<p className="page-status">Loading…</p>}>
        <Routes>
          <Route index element={<Navigate to="/runs" replace />} />
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
