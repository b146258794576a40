import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { DashboardsListPage } from './dashboards-list-page';
import './dashboards.css';

// The dashboard view brings ECharts and the grid: its own chunk, so the list (and every other page) loads without them.
const DashboardPage = lazy(() => import('./dashboard-page'));

/** /console/dashboards: the list, and one dashboard. */
export default function DashboardsArea() {
  return (
    <Routes>
      <Route index element={<DashboardsListPage />} />
      <Route
        path=":id"
        element={
          <Suspense fallback={<p className="page-status">Loading…</p>}>
            <DashboardPage />
          </Suspense>
        }
      />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
