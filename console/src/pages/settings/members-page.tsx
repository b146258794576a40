import { type FormEvent, useState } from 'react';
import { del, get, patch, post } from '../../api/client';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { type Loaded, useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { SettingsTabs } from './settings-tabs';
import { type CreatedInvitation, type InvitationList, type Member, type MemberList, type Role, ROLES } from './settings-types';

const MEMBERS = '/organization/members?limit=1000';
const INVITATIONS = '/organization/invitations?limit=1000';

/** Members and their roles, and open invitations; all of it needs members:admin. */
export function MembersPage() {
  const { can, session } = useSession();
  const allowed = can('members:admin');
  const members = useApi(allowed ? MEMBERS : null, (signal) => get<MemberList>(MEMBERS, { signal }));
  const invitations = useApi(allowed ? INVITATIONS : null, (signal) => get<InvitationList>(INVITATIONS, { signal }));

  return (
    <Page title="Members" subtitle="People in the organization and what their role lets them do">
      <SettingsTabs />
      {!allowed && (
        <p className="notice" role="note">
          Your role ({session.role}) cannot manage members: it needs the members:admin permission, which owners and admins have.
        </p>
      )}
      {allowed && (
        <>
          <ListView
            state={members}
            items={members.data?.data}
            loadingText="Loading members…"
            empty="No members."
            className="members"
            columns={[{ label: 'Name' }, { label: 'E-mail' }, { label: 'Role' }, { label: 'Joined' }, { label: 'Actions', hidden: true }]}
            rowKey={(m) => m.userId}
            row={(m) => <MemberRow member={m} isMe={m.userId === session.user.id} onChanged={members.reload} />}
          />
          <Invitations invitations={invitations} onChanged={invitations.reload} />
        </>
      )}
    </Page>
  );
}

function MemberRow({ member: m, isMe, onChanged }: { member: Member; isMe: boolean; onChanged(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const who = m.name ?? m.email;

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <tr>
        <th scope="row" className="plain-row-header">
          {m.name ?? <span className="muted">—</span>}
          {isMe && <span className="muted"> (you)</span>}
        </th>
        <td>{m.email}</td>
        <td>
          <label htmlFor={`role-${m.userId}`} className="visually-hidden">
            Role of {who}
          </label>
          <select
            id={`role-${m.userId}`}
            value={m.role}
            disabled={busy}
            onChange={(e) => void run(() => patch(`/organization/members/${m.userId}`, { role: e.target.value as Role }))}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </td>
        <td>{formatTime(m.createdAt)}</td>
        <td className="row-actions">
          {!confirming && (
            <button type="button" className="link-button danger-link" onClick={() => setConfirming(true)} aria-label={`Remove ${who}`}>
              Remove
            </button>
          )}
        </td>
      </tr>
      {(confirming || error !== undefined) && (
        <tr className="detail-row">
          <td colSpan={5}>
            {confirming && (
              <ConfirmPrompt
                question={`Remove ${who} from the organization? Their tokens here stop working${isMe ? ', including the one you are signed in with' : ''}.`}
                confirmLabel="Remove member"
                busy={busy}
                onConfirm={() => void run(() => del(`/organization/members/${m.userId}`))}
                onCancel={() => setConfirming(false)}
              />
            )}
            <ErrorBox error={error} />
          </td>
        </tr>
      )}
    </>
  );
}

interface InvitationsProps {
  invitations: Loaded<InvitationList>;
  onChanged(): void;
}

function Invitations({ invitations, onChanged }: InvitationsProps) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [createError, setCreateError] = useState<unknown>();
  // The code is shown once, right after the invitation is made; it is not kept past "Done".
  const [created, setCreated] = useState<{ email: string; link: string }>();
  const [revokeError, setRevokeError] = useState<unknown>();

  async function invite(event: FormEvent) {
    event.preventDefault();
    setCreateError(undefined);
    try {
      const invitation = await post<CreatedInvitation>('/organization/invitations', {
        email,
        role,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      setCreated({ email: invitation.email, link: `${window.location.origin}/console/invitations/${encodeURIComponent(invitation.code)}` });
      setEmail('');
      setName('');
      onChanged();
    } catch (e) {
      setCreateError(e);
    }
  }

  async function revoke(id: string) {
    setRevokeError(undefined);
    try {
      await del(`/organization/invitations/${id}`);
      onChanged();
    } catch (e) {
      setRevokeError(e);
    }
  }

  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {created && (
        <div className="once-box" role="status">
          <p>
            Invitation for <strong>{created.email}</strong> created. Send them this link; it is shown only now.
          </p>
          <p className="once-value">
            <code id="invitation-link">{created.link}</code> <CopyButton text={created.link} label="Copy link" />
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <h3 id="invite-heading">Invite someone</h3>
      <form className="filters invite-form" aria-labelledby="invite-heading" onSubmit={(e) => void invite(e)}>
        <div>
          <label htmlFor="invite-email">E-mail</label>
          <input id="invite-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </div>
        <div>
          <label htmlFor="invite-name">Name (optional)</label>
          <input id="invite-name" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div>
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" className="primary">
            Invite
          </button>
        </div>
      </form>
      <ErrorBox error={createError} />
      <ErrorBox error={revokeError} />
      <ListView
        state={invitations}
        items={invitations.data?.data}
        loadingText="Loading invitations…"
        empty="No open invitations."
        className="invitations"
        columns={[{ label: 'E-mail' }, { label: 'Name' }, { label: 'Role' }, { label: 'Invited' }, { label: 'Expires' }, { label: 'Actions', hidden: true }]}
        rowKey={(i) => i.id}
        row={(i) => (
          <tr>
            <th scope="row" className="plain-row-header">
              {i.email}
            </th>
            <td>{i.name ?? <span className="muted">—</span>}</td>
            <td>{i.role}</td>
            <td>{formatTime(i.createdAt)}</td>
            <td>{formatTime(i.expiresAt)}</td>
            <td>
              <button type="button" className="link-button danger-link" onClick={() => void revoke(i.id)} aria-label={`Revoke invitation of ${i.email}`}>
                Revoke
              </button>
            </td>
          </tr>
        )}
      />
    </section>
  );
}
