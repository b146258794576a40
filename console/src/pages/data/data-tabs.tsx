import { useSession } from '../../session/session';
import { SubNav } from '../../ui/sub-nav';

/** Tables | Data sources: the second only for roles that may read dashboards' sources. */
export function DataTabs() {
  const { can } = useSession();
  const items = [{ to: '/data/tables', label: 'Tables' }];
  if (can('dashboards:view')) items.push({ to: '/data/sources', label: 'Data sources' });
  return <SubNav label="Data" items={items} />;
}
