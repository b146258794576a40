import { NavLink } from 'react-router';
import './sub-nav.css';

export interface SubNavItem {
  /** Absolute path inside the console (e.g. `/data/tables`). */
  to: string;
  label: string;
  /** Active only on this exact path (an area's index), not on the paths under it. */
  end?: boolean;
}

/** Tabs of an area as links: each tab is a route, so reload and back/forward keep it. */
export function SubNav({ label, items }: { label: string; items: SubNavItem[] }) {
  return (
    <nav className="sub-nav" aria-label={label}>
      <ul>
        {items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end={item.end}>
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
