import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { useSession } from '../session/session';

const AREAS = [
  { to: '/runs', label: 'Runs', permission: 'workflows:view' },
  { to: '/workflows', label: 'Workflows', permission: 'workflows:view' },
  { to: '/dashboards', label: 'Dashboards', permission: 'dashboards:view' },
  { to: '/data', label: 'Data', permission: 'workflows:view' },
  { to: '/settings', label: 'Settings', permission: null },
] as const;

/** The frame of every signed-in page: the areas the role may see, who is signed in, sign-out. */
export function Shell({ children }: { children: ReactNode }) {
  const { session, can, signOut } = useSession();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Flowbase</span>
        <nav aria-label="Main">
          <ul>
            {AREAS.filter((a) => a.permission === null || can(a.permission)).map((area) => (
              <li key={area.to}>
                <NavLink to={area.to}>{area.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span title={session.user.id}>{session.user.name ?? session.user.email}</span>
          <span className="org" title={`Organization ${session.organization.suid}`}>
            {session.organization.name} · {session.role}
          </span>
          <button type="button" className="link-button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
