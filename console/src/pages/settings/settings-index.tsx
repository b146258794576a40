import { Link } from 'react-router';
import { get } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { SettingsTabs } from './settings-tabs';
import type { Organization } from './settings-types';

const SECTIONS = [
  { to: '/settings/connections', title: 'Connections', text: 'Stored, encrypted credentials that workflow steps and data feeds use by name.' },
  { to: '/settings/environments', title: 'Environments', text: 'Named sets of variables that templates read through $env.' },
  { to: '/settings/members', title: 'Members', text: 'Who belongs to the organization, their roles, and open invitations.' },
  { to: '/settings/tokens', title: 'Access tokens', text: 'Your own tokens for the API and for signing in here.' },
  { to: '/settings/model-prices', title: 'Model prices', text: 'What LLM tokens cost in this organization’s runs, and its own prices.' },
];

/** The settings index: which organization this is, and the way to each settings page. */
export function SettingsIndex() {
  const { session } = useSession();
  const org = useApi('/organization', (signal) => get<Organization>('/organization', { signal }));
  return (
    <Page title="Settings">
      <SettingsTabs />
      <section className="org-block" aria-labelledby="org-heading">
        <h2 id="org-heading">Organization</h2>
        <ErrorBox error={org.error} />
        {!org.data && !org.error && <p className="page-status">Loading organization…</p>}
        {org.data && (
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd className="org-name">{org.data.name}</dd>
            </div>
            <div>
              <dt>Identifier (suid)</dt>
              <dd>
                <code>{org.data.suid}</code>
              </dd>
            </div>
            <div>
              <dt>Plan</dt>
              <dd className="capitalize">{org.data.plan}</dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd className="capitalize">{org.data.role}</dd>
            </div>
            <div>
              <dt>Signed in as</dt>
              <dd>{session.user.email}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatTime(org.data.createdAt)}</dd>
            </div>
          </dl>
        )}
        {org.data && <p className="muted permissions">Your permissions: {org.data.permissions.length > 0 ? org.data.permissions.join(', ') : 'none'}</p>}
      </section>
      <ul className="section-cards">
        {SECTIONS.map((s) => (
          <li key={s.to}>
            <h2>
              <Link to={s.to}>{s.title}</Link>
            </h2>
            <p>{s.text}</p>
          </li>
        ))}
      </ul>
    </Page>
  );
}
