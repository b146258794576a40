import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, post } from '../api/client';
import type { Session } from './session';

interface Props {
  notice?: string;
  onSignedIn(session: Session): void;
}

/**
 * Sign-in without passwords: a personal token is pasted once and exchanged for
 * a session cookie; the token itself is kept nowhere in the browser. The page
 * says where a token comes from, since nothing else here can make one.
 * Invitation links have a page of their own (invitation-sign-in.tsx).
 */
export function SignInPage({ notice, onSignedIn }: Props) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await post<Session>('/session', { token: token.trim() }));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
      setToken('');
    }
  }

  useEffect(() => {
    document.title = 'Sign in · Flowbase';
  }, []);

  return (
    <main className="sign-in">
      <h1>Flowbase</h1>
      {notice && <p role="status">{notice}</p>}
      <form onSubmit={submit} aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">Sign in with an access token</h2>
        <p>
          Paste a personal access token once. The server exchanges it for a console session of 12 hours at most (never longer than the token), which ends when
          you sign out or the token is revoked; the token is not kept in this browser.
        </p>
        <label htmlFor="token">Access token</label>
        <input id="token" name="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
        <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
      <section aria-labelledby="token-sources-heading" className="token-sources">
        <h2 id="token-sources-heading">Where a token comes from</h2>
        <ul>
          <li>
            <strong>An invitation link</strong> (<code>/console/invitations/…</code>) from a member of your organization: accepting it signs you in and shows
            your new token once.
          </li>
          <li>
            <strong>Settings → Tokens</strong>, while signed in to the console (in another browser, or before this session ends): mint one there.
          </li>
          <li>
            <strong>The operator&apos;s admin command</strong>, on the server:{' '}
            <code>npm run admin -- create-org --name &lt;name&gt; --email &lt;email&gt;</code> makes an organization and its owner&apos;s token;{' '}
            <code>npm run admin -- create-token --org &lt;id or suid&gt; --email &lt;email&gt;</code> gives an existing member a new one.
          </li>
        </ul>
      </section>
    </main>
  );
}
