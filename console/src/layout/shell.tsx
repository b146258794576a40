import { type ReactNode, useEffect, useRef, useState } from 'react';
import { NavLink, useLocation } from 'react-router';
import { useSession } from '../session/session';

const AREAS = [
  { to: '/runs', label: 'Runs', permission: 'workflows:view' },
  { to: '/workflows', label: 'Workflows', permission: 'workflows:view' },
  { to: '/dashboards', label: 'Dashboards', permission: 'dashboards:view' },
  { to: '/data', label: 'Data', permission: 'workflows:view' },
  { to: '/settings', label: 'Settings', permission: null },
] as const;

/**
 * The frame of every signed-in page: the areas the role may see, who is signed in, sign-out. On a narrow screen
 * (styles.css) the areas and the account fold behind a Menu button; on a wide one the button is not drawn.
 */
export function Shell({ children }: { children: ReactNode }) {
  const { session, can, signOut } = useSession();
  const menu = useMenu();
  const { headerRef, buttonRef } = menu;
  return (
    <div className="shell">
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          // Focus, not a hash navigation: the address stays the page's own, and the next Tab starts inside the page.
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to main content
      </a>
      <header className="top-bar" ref={headerRef}>
        <span className="brand">Flowbase</span>
        <button type="button" className="menu-button" aria-expanded={menu.open} aria-controls="top-menu" ref={buttonRef} onClick={menu.toggle}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <div id="top-menu" className={menu.open ? 'top-menu open' : 'top-menu'}>
          {/* A link followed folds the menu at once, before the next page has loaded (back and forward fold it too, above). */}
          <nav aria-label="Main" onClick={(e) => (e.target as Element).closest('a') && menu.close()}>
            <ul>
              {AREAS.filter((a) => a.permission === null || can(a.permission)).map((area) => (
                <li key={area.to}>
                  <NavLink to={area.to}>{area.label}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className="who">
            <span className="who-name" title={session.user.id}>
              {session.user.name ?? session.user.email}
            </span>
            <span className="org" title={`Organization ${session.organization.suid}`}>
              {session.organization.name} · {session.role}
            </span>
            <button type="button" className="link-button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/**
 * The narrow screen's menu: open and closed by its button; Escape closes it and gives the button its focus back,
 * and it closes by itself when a link in it leads elsewhere or a click lands outside the bar.
 */
function useMenu() {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const headerRef = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const [shownAt, setShownAt] = useState(pathname);
  if (shownAt !== pathname) {
    setShownAt(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      if (!headerRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);
  return { open, toggle: () => setOpen((o) => !o), close: () => setOpen(false), buttonRef, headerRef };
}
