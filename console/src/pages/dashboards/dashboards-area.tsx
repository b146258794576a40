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
// The query builder (add or edit a widget): a chunk of its own, so neither the list nor a dashboard loads its forms.
type BuilderModule = typeof import('./query-builder/builder-page');
let builderModule: BuilderModule | undefined;
let builderLoad: Promise<BuilderModule> | undefined;
function loadBuilder(): Promise<BuilderModule> {
  builderLoad ??= import('./query-builder/builder-page').then(
    (m) => (builderModule = m),
    (err: unknown) => {
      builderLoad = undefined;
      throw err;
    },
  );
  return builderLoad;
}
// Opened at a dashboard's address, or at its builder's: that chunk downloads now, beside the session and this area.
if (/^\/console\/dashboards\/[^/]+\/widgets\//.test(window.location.pathname)) void loadBuilder().catch(() => undefined);
else if (/^\/console\/dashboards\/[^/]+/.test(window.location.pathname)) void loadPage().catch(() => undefined);

/** /console/dashboards: the list, one dashboard, and the query builder that adds or edits one of its widgets. */
export default function DashboardsArea() {
  return (
    <div className="area-dashboards">
      <Routes>
        <Route index element={<DashboardsListPage />} />
        <Route path=":id" element={<DashboardRoute />} />
        <Route path=":id/widgets/new" element={<BuilderRoute />} />
        <Route path=":id/widgets/:widgetId/edit" element={<BuilderRoute />} />
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

/** The query builder, once its chunk is here. */
function BuilderRoute() {
  const [loaded, setLoaded] = useState<{ page?: BuilderModule; error?: unknown }>({ page: builderModule });
  useEffect(() => {
    if (loaded.page) return;
    let live = true;
    loadBuilder().then(
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
