import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, post } from '../api/client';
import type { ApiSchema } from '../api/schemas';
import type { Session } from './session';

interface Props {
  notice?: string;
  onSignedIn(session: Session): void;
}

/**
 * Sign-in without passwords: a personal token is pasted once and exchanged for
 * a session cookie; the token itself is kept nowhere in the browser. An
 * invitation link (/console/invitations/<code>) accepts the invitation first.
 */
export function SignInPage({ notice, onSignedIn }: Props) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const invitationCode = /\/console\/invitations\/([^/?#]+)/.exec(window.location.pathname)?.[1];

  // The invitation link stays in the address: signed in, the console offers to accept it (invitation-page.tsx).
  async function exchange(secret: string) {
    onSignedIn(await post<Session>('/session', { token: secret }));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await exchange(token.trim());
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
      setToken('');
    }
  }

  async function acceptInvitation() {
    setBusy(true);
    setError(undefined);
    try {
      const accepted = await post<ApiSchema<'AcceptedInvitation'>>('/invitations/accept', { code: decodeURIComponent(invitationCode!) });
      window.history.replaceState(null, '', '/console/');
      await exchange(accepted.token.token);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    document.title = 'Sign in · Flowbase';
  }, []);

  return (
    <main className="sign-in">
      <h1>Flowbase</h1>
      {notice && <p role="status">{notice}</p>}
      {invitationCode && (
        <section aria-labelledby="invitation-heading">
          <h2 id="invitation-heading">You are invited</h2>
          <p>
            New to Flowbase? Accept, and an account is made for the invited address; the console signs you in with the new membership's token, which is not
            shown or stored here.
          </p>
          <button type="button" onClick={acceptInvitation} disabled={busy}>
            Accept and create my account
          </button>
          <p>Already have an account? Sign in below with one of your personal tokens; you can then accept the invitation.</p>
        </section>
      )}
      <form onSubmit={submit} aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">Sign in with an access token</h2>
        <p>
          Paste a personal access token once. The server exchanges it for a session that lasts until you sign out or the token is revoked; the token is not kept
          in this browser.
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
    </main>
  );
}
