import { type FormEvent, useRef, useState } from 'react';
import { del, get, post } from '../../api/client';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { type Permission, useSession } from '../../session/session';
import { ListView } from '../../ui/list-view';
import { PERMISSION_GROUPS } from './permission-groups';
import { SettingsTabs } from './settings-tabs';
import type { AccessToken, IssuedAccessToken, TokenList } from './settings-types';

const LIST = '/tokens?limit=1000';

/** The signed-in person's own tokens in this organization: mint (secret shown once) with chosen permissions and an expiry, and revoke. */
export function TokensPage() {
  const tokens = useApi(LIST, (signal) => get<TokenList>(LIST, { signal }));
  const [minted, setMinted] = useState<{ name: string; token: string }>();

  return (
    <Page title="Access tokens" subtitle="Your own tokens for the API and for signing in to this console">
      <SettingsTabs />
      <p className="notice" role="note">
        Revoking the token you signed in to this console with signs you out (the console cannot tell which of your tokens that is). Revoking a token also
        revokes every token minted with it.
      </p>
      {minted && (
        <div className="once-box" role="status">
          <p>
            Token <strong>{minted.name}</strong> created. Copy it now: it is shown only once and cannot be read again.
          </p>
          <p className="once-value">
            <code id="minted-token">{minted.token}</code> <CopyButton text={minted.token} label="Copy token" />
          </p>
          <button type="button" onClick={() => setMinted(undefined)}>
            I have copied it
          </button>
        </div>
      )}
      <MintForm
        onMinted={(m) => {
          setMinted(m);
          tokens.reload();
        }}
      />
      <ListView
        state={tokens}
        items={tokens.data?.data}
        loadingText="Loading tokens…"
        empty="No live tokens."
        className="tokens"
        columns={[
          { label: 'Name' },
          { label: 'Starts with' },
          { label: 'Kind' },
          { label: 'Permissions' },
          { label: 'Created' },
          { label: 'Last used' },
          { label: 'Expires' },
          { label: 'Actions', hidden: true },
        ]}
        rowKey={(t) => t.id}
        row={(t) => <TokenRow token={t} onRevoked={tokens.reload} />}
      />
    </Page>
  );
}

/** Expiry presets, in days; "never" and a number of one's own besides. */
const EXPIRY_PRESETS = [
  { days: '7', label: '7 days' },
  { days: '30', label: '30 days' },
  { days: '90', label: '90 days' },
  { days: '365', label: '1 year' },
];
const DEFAULT_DAYS = '90';

function MintForm({ onMinted }: { onMinted(m: { name: string; token: string }): void }) {
  const { session } = useSession();
  // What this session's token holds: a new token can hold no more (the API refuses the rest).
  const held = session.permissions;
  const [name, setName] = useState('');
  const [days, setDays] = useState(DEFAULT_DAYS);
  const [chosen, setChosen] = useState<ReadonlySet<Permission>>(() => new Set(held));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const daysInput = useRef<HTMLInputElement>(null);
  const preset = days === '' ? 'never' : EXPIRY_PRESETS.some((p) => p.days === days) ? days : 'custom';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    if (chosen.size === 0) {
      setError(new Error('Choose at least one permission for the token'));
      return;
    }
    setBusy(true);
    try {
      // All of them: the token follows the role (as the API does when no list is sent); fewer: exactly those, at most.
      const permissions = held.length === chosen.size ? undefined : held.filter((p) => chosen.has(p));
      const issued = await post<IssuedAccessToken>('/tokens', {
        name,
        ...(days ? { expiresInDays: Number(days) } : {}),
        ...(permissions ? { permissions } : {}),
      });
      setName('');
      setDays(DEFAULT_DAYS);
      setChosen(new Set(held));
      onMinted({ name: issued.name, token: issued.token });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  // The API refuses an …:admin without its …:view (a token may not change what it cannot read): the boxes follow that rule.
  const toggle = (permission: Permission, on: boolean) =>
    setChosen((c) => {
      const next = new Set(c);
      const [area, level] = permission.split(':');
      const view = `${area}:view` as Permission;
      const admin = `${area}:admin` as Permission;
      if (on) {
        next.add(permission);
        if (level === 'admin' && held.includes(view)) next.add(view);
      } else {
        next.delete(permission);
        if (level === 'view') next.delete(admin);
      }
      return next;
    });

  return (
    <form className="panel mint-form" aria-labelledby="mint-heading" onSubmit={(e) => void submit(e)}>
      <h2 id="mint-heading">New token</h2>
      <div className="filters">
        <div>
          <label htmlFor="token-name">Token name</label>
          <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="ci-deploy" />
        </div>
        <div>
          <label htmlFor="token-expiry">Expires</label>
          <select
            id="token-expiry"
            value={preset}
            onChange={(e) => {
              const value = e.target.value;
              if (value === 'custom') daysInput.current?.focus();
              else setDays(value === 'never' ? '' : value);
            }}
          >
            {EXPIRY_PRESETS.map((p) => (
              <option key={p.days} value={p.days}>
                in {p.label}
              </option>
            ))}
            <option value="custom">after a number of days…</option>
            <option value="never">never</option>
          </select>
        </div>
        <div>
          <label htmlFor="token-days">Expires in days (optional)</label>
          <input ref={daysInput} id="token-days" type="number" min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)} />
        </div>
      </div>
      <fieldset className="token-permissions">
        <legend>Permissions</legend>
        <p className="help" id="token-permissions-help">
          All of them: the token can do whatever your role can, now and after a role change. Fewer: only those, and never more than your role allows at the
          time.{' '}
          <button type="button" className="link-button" onClick={() => setChosen(new Set(held))}>
            Choose all
          </button>{' '}
          <button type="button" className="link-button" onClick={() => setChosen(new Set(held.filter((p) => p.endsWith(':view'))))}>
            Read only
          </button>
        </p>
        <div className="permission-groups">
          {PERMISSION_GROUPS.map((group) => {
            const offered = group.permissions.filter((p) => held.includes(p.permission));
            if (offered.length === 0) return null;
            return (
              <fieldset key={group.label} className="permission-group">
                <legend>{group.label}</legend>
                {offered.map(({ permission, text }) => (
                  <label key={permission} className="checkbox">
                    <input type="checkbox" checked={chosen.has(permission)} onChange={(e) => toggle(permission, e.target.checked)} /> <code>{permission}</code>{' '}
                    <span className="help">{text}</span>
                  </label>
                ))}
              </fieldset>
            );
          })}
        </div>
      </fieldset>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Create token
        </button>
      </div>
    </form>
  );
}

/** A token's permissions as the list shows them: the role's, or the few it was minted with. */
function Scope({ permissions }: { permissions: AccessToken['permissions'] }) {
  if (permissions === null) return <span className="muted">all of the role&apos;s</span>;
  return (
    <ul className="scope-list">
      {permissions.map((p) => (
        <li key={p}>
          <code>{p}</code>
        </li>
      ))}
    </ul>
  );
}

function TokenRow({ token: t, onRevoked }: { token: AccessToken; onRevoked(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();

  async function revoke() {
    setError(undefined);
    try {
      await del(`/tokens/${t.id}`);
      onRevoked();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <>
      <tr>
        <th scope="row" className="plain-row-header">
          {t.name}
        </th>
        <td>
          <code>{t.tokenPrefix}…</code>
        </td>
        <td>{t.kind}</td>
        <td>
          <Scope permissions={t.permissions} />
        </td>
        <td>{formatTime(t.createdAt)}</td>
        <td>{t.lastUsedAt ? formatTime(t.lastUsedAt) : <span className="muted">never</span>}</td>
        <td>{t.expiresAt ? formatTime(t.expiresAt) : <span className="muted">never</span>}</td>
        <td className="row-actions">
          {!confirming && (
            <button type="button" className="link-button danger-link" onClick={() => setConfirming(true)} aria-label={`Revoke ${t.name}`}>
              Revoke
            </button>
          )}
        </td>
      </tr>
      {(confirming || error !== undefined) && (
        <tr className="detail-row">
          <td colSpan={8}>
            {confirming && (
              <ConfirmPrompt
                question={
                  <>
                    Revoke <strong>{t.name}</strong> and every token minted with it? If you signed in to this console with it, you will be signed out.
                  </>
                }
                confirmLabel="Revoke token"
                onConfirm={() => void revoke()}
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
