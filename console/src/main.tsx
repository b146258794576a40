import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app';
import { SessionProvider } from './session/session-provider';
import { mayBeSignedIn } from './api/client';
import { prefetchDashboard } from './pages/dashboards/dashboard-prefetch';
import './styles.css';
import './ui/panels.css';

// Opened at a dashboard: its two calls start now, beside GET /session and the page's chunk, not after them.
const dashboardId = /^\/console\/dashboards\/([0-9a-f-]{36})\/?$/.exec(window.location.pathname)?.[1];
if (dashboardId && mayBeSignedIn()) prefetchDashboard(dashboardId, window.location.search);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/console">
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
