import { type ComponentType, useEffect, useLayoutEffect, useState } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { ErrorBox } from '../../ui/error-box';
import { forgetDashboard, prefetchDashboard } from './dashboard-prefetch';
import { DashboardsListPage } from './dashboards-list-page';
import './dashboards.css';

/**
 * A page's chunk, loaded by hand rather than with lazy() and Suspense: React holds back a Suspense boundary's content
 * for up to 300 ms after a fallback was shown, which was the longest wait of a dashboard's first draw.
 */
function chunk<M extends { default: ComponentType }>(load: () => Promise<M>) {
  let loaded: M | undefined;
  let pending: Promise<M> | undefined;
  const start = () =>
    (pending ??= load().then(
      (m) => (loaded = m),
      (err: unknown) => {
        pending = undefined; // the next visit tries again
        throw err;
      },
    ));
  /** The page once its chunk is here (a fallback before, or the reason it could not load). */
  function Loaded() {
    const [state, setState] = useState<{ page?: M; error?: unknown }>({ page: loaded });
    useEffect(() => {
      if (state.page) return;
      let live = true;
      start().then(
        (page) => live && setState({ page }),
        (error: unknown) => live && setState({ error }),
      );
      return () => {
        live = false;
      };
    }, [state.page]);
    if (state.page) return <state.page.default />;
    return state.error ? <ErrorBox error={state.error} /> : <p className="page-status">Loading…</p>;
  }
  return { start, Loaded };
}

// The dashboard view brings ECharts and the grid: its own chunk, so the list (and every other page) loads without them.
const dashboardPage = chunk(() => import('./dashboard-page'));
// The query builder (add or edit a widget): a chunk of its own, so neither the list nor a dashboard loads its forms.
const builderPage = chunk(() => import('./query-builder/builder-page'));
// Opened at a dashboard's address, or at its builder's: that chunk downloads now, beside the session and this area.
if (/^\/console\/dashboards\/[^/]+\/widgets\//.test(window.location.pathname)) void builderPage.start().catch(() => undefined);
else if (/^\/console\/dashboards\/[^/]+/.test(window.location.pathname)) void dashboardPage.start().catch(() => undefined);

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
  // A layout effect: it runs before the page's own (passive) effects take the calls, also when the chunk is already here.
  // Only on entering (or another id): a filter change later is the page's own request.
  useLayoutEffect(() => {
    prefetchDashboard(id, window.location.search);
    return () => forgetDashboard(id);
  }, [id]);
  return <dashboardPage.Loaded />;
}

/** The query builder, once its chunk is here. */
function BuilderRoute() {
  return <builderPage.Loaded />;
}
