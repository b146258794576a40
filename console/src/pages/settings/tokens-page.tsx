import { type FormEvent, useState } from 'react';
import { del, get, post } from '../../api/client';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
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
