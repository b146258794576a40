import { useEffect, useLayoutEffect, useState } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { ErrorBox } from '../../ui/error-box';
import { forgetDashboard, prefetchDashboard } from './dashboard-prefetch';
import { DashboardsListPage } from './dashboards-list-page';
import './dashboards.css';

// The dashboard view brings ECharts and the grid: its own chunk, so the list (and every other page) loads without them.
// Loaded by hand, not with lazy() and Suspense: React holds back a Suspense boundary's content for up to 300 ms after
// a fallback was shown, which here was the longest wait of a dashboard's first draw.
type PageModule = typeof import('./dashboard-page');
let pageModule: PageModule | undefined;
let pageLoad: Promise<PageModule> | undefined;
function loadPage(): Promise<PageModule> {
  pageLoad ??= import('./dashboard-page').then(
    (m) => (pageModule = m),
    (err: unknown) => {
      pageLoad = undefined; // the next visit tries again
      throw err;
    },
  );
  return pageLoad;
}
// Opened at a dashboard's address: its chunk downloads now, beside the session and this area.
if (/^\/console\/dashboards\/[^/]+/.test(window.location.pathname)) void loadPage().catch(() => undefined);

/** /console/dashboards: the list, and one dashboard. */
export default function DashboardsArea() {
  return (
    <div className="area-dashboards">
      <Routes>
        <Route index element={<DashboardsListPage />} />
        <Route path=":id" element={<DashboardRoute />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </div>
  );
}

/**
 * One dashboard. Entering it starts its two calls at once (dashboard-prefetch.ts),
 * so they run while the page's chunk downloads and evaluates instead of after.
 */
function DashboardRoute() {
  const { id = '' } = useParams();
  const [loaded, setLoaded] = useState<{ page?: PageModule; error?: unknown }>({ page: pageModule });
  // A layout effect: it runs before the page's own (passive) effects take the calls, also when the chunk is already here.
  // Only on entering (or another id): a filter change later is the page's own request.
  useLayoutEffect(() => {
    prefetchDashboard(id, window.location.search);
    return () => forgetDashboard(id);
  }, [id]);
  useEffect(() => {
    if (loaded.page) return;
    let live = true;
    loadPage().then(
      (page) => live && setLoaded({ page }),
      (error: unknown) => live && setLoaded({ error }),
    );
    return () => {
      live = false;
    };
  }, [loaded.page]);

  if (loaded.page) return <loaded.page.default />;
  return loaded.error ? <ErrorBox error={loaded.error} /> : <p className="page-status">Loading…</p>;
}
