import { SubNav } from '../../ui/sub-nav';

const ITEMS = [
  { to: '/settings', label: 'Organization', end: true },
  { to: '/settings/connections', label: 'Connections' },
  { to: '/settings/environments', label: 'Environments' },
  { to: '/settings/members', label: 'Members' },
  { to: '/settings/tokens', label: 'Access tokens' },
  { to: '/settings/model-prices', label: 'Model prices' },
];

/** The settings pages as tabs; pages a role may not use say so themselves, so every tab stays where people expect it. */
export function SettingsTabs() {
  return <SubNav label="Settings" items={ITEMS} />;
}
