import { type FormEvent, useState } from 'react';
import { del, get, post } from '../../api/client';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { SettingsTabs } from './settings-tabs';
import type { AccessToken, IssuedAccessToken, TokenList } from './settings-types';

const LIST = '/tokens?limit=1000';

/** The signed-in person's own tokens in this organization: mint (secret shown once) and revoke. */
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
      <ErrorBox error={tokens.error} />
      {!tokens.data && !tokens.error && <p className="page-status">Loading tokens…</p>}
      {tokens.data && tokens.data.total === 0 && <p className="empty-state">No live tokens.</p>}
      {tokens.data && tokens.data.data.length > 0 && (
        <table className="list tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.data.map((t) => (
              <TokenRow key={t.id} token={t} onRevoked={tokens.reload} />
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

function MintForm({ onMinted }: { onMinted(m: { name: string; token: string }): void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const issued = await post<IssuedAccessToken>('/tokens', { name, ...(days ? { expiresInDays: Number(days) } : {}) });
      setName('');
      setDays('');
      onMinted({ name: issued.name, token: issued.token });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <form className="filters" aria-label="New token" onSubmit={(e) => void submit(e)}>
        <div>
          <label htmlFor="token-name">Token name</label>
          <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="ci-deploy" />
        </div>
        <div>
          <label htmlFor="token-days">Expires in days (optional)</label>
          <input id="token-days" type="number" min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)} />
        </div>
        <div>
          <button type="submit" className="primary" disabled={busy}>
            Create token
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
    </>
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
          <td colSpan={7}>
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
