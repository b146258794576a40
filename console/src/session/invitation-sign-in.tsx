import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../api/client';
import { ErrorBox } from '../ui/error-box';
import { acceptInvitation, acceptProblem, JOINED_PATH, signInAndAccept } from './invitations';
import { ClosedInvitation, InvitationSummary, useInvitationPreview } from './invitation-summary';
import type { Joined, Session } from './session';

interface Props {
  code: string;
  notice?: string;
  onJoined(session: Session, joined: Joined): void;
}

/**
 * An invitation link opened while signed out: what it offers, and one
 * accept for each kind of person. Someone new accepts, and the API makes
 * their account; someone with an account pastes one of their tokens, which
 * signs them in and accepts with their account in the same step. Either way
 * the console then signs in to the new membership and shows its token once.
 */
export function InvitationSignIn({ code, notice, onJoined }: Props) {
  const invitation = useInvitationPreview(code);
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const tokenInput = useRef<HTMLInputElement>(null);
  const preview = invitation.data;

  useEffect(() => {
    document.title = `${preview ? `Invitation to ${preview.organizationName}` : 'Invitation'} · Flowbase`;
  }, [preview]);

  async function join(event: FormEvent, accept: () => Promise<{ session: Session; joined: Joined }>) {
    event.preventDefault();
    if (!preview) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { session, joined } = await accept();
      // Through the router, so the page drawn next is the joined one and never this used code's.
      void navigate(JOINED_PATH, { replace: true });
      onJoined(session, joined);
    } catch (e) {
      setProblem(acceptProblem(e, preview));
      setBusy(false);
      if (e instanceof ApiError && e.code === 'sign_in_required') tokenInput.current?.focus();
    } finally {
      setToken('');
    }
  }

  return (
    <main className="sign-in">
      <h1>Flowbase</h1>
      {notice && <p role="status">{notice}</p>}
      {invitation.loading && <p className="page-status">Loading the invitation…</p>}
      <ErrorBox error={invitation.error} />
      {preview === null && <ClosedInvitation />}
      {preview && (
        <>
          <h2>Invitation to {preview.organizationName}</h2>
          <InvitationSummary preview={preview} />
          {problem && (
            <p role="alert" className="error">
              {problem}
            </p>
          )}
          <form onSubmit={(e) => void join(e, () => acceptInvitation(code, name.trim() || undefined))} aria-labelledby="new-account-heading">
            <h3 id="new-account-heading">New to Flowbase?</h3>
            <p>Accept, and an account is made for {preview.email}; the console signs you in to it and shows your first access token once.</p>
            <label htmlFor="invited-name">Your name (optional)</label>
            <input id="invited-name" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
            <button type="submit" className="primary" disabled={busy}>
              Accept and create my account
            </button>
          </form>
          <form onSubmit={(e) => void join(e, () => signInAndAccept(code, token.trim()))} aria-labelledby="have-account-heading">
            <h3 id="have-account-heading">Already have an account?</h3>
            <p>
              Paste one of the access tokens of {preview.email} (from any organization it belongs to). You are signed in with it, the invitation is accepted
              with your account, and the console switches to {preview.organizationName}. The token is not kept in this browser.
            </p>
            <label htmlFor="invited-token">Your token</label>
            <input
              ref={tokenInput}
              id="invited-token"
              name="token"
              type="password"
              autoComplete="off"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              required
            />
            <button type="submit" disabled={busy || token.trim() === ''}>
              Sign in and accept
            </button>
          </form>
        </>
      )}
    </main>
  );
}
