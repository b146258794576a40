import { Fragment, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useMatch } from 'react-router';
import { ApiError, configureClient, del, get } from '../api/client';
import { InvitationSignIn } from './invitation-sign-in';
import { JOINED_PATH } from './invitations';
import { type Joined, type Permission, type Session, SessionContext } from './session';
import { SignInPage } from './sign-in-page';
import './session.css';

type Status = { kind: 'loading' } | { kind: 'signed-out'; reason?: string } | { kind: 'signed-in'; session: Session } | { kind: 'error'; message: string };

/** Asks the server who is signed in (the cookie is HttpOnly), and shows sign-in until someone is. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>({ kind: 'loading' });
  // A joined membership's token, for its one display; only here, in memory, never in storage.
  const [joined, setJoined] = useState<Joined>();

  const adopt = useCallback((session: Session) => {
    configureClient({ csrfToken: session.csrfToken ?? undefined });
    setStatus({ kind: 'signed-in', session });
  }, []);

  useEffect(() => {
    configureClient({
      onSignedOut: () => {
        configureClient({ csrfToken: undefined });
        setJoined(undefined);
        setStatus({ kind: 'signed-out', reason: 'Your session has ended. Sign in again.' });
      },
    });
    get<Session>('/session')
      .then(adopt)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setStatus({ kind: 'signed-out' });
        else setStatus({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
      });
  }, [adopt]);

  const signOut = useCallback(async () => {
    try {
      await del('/session');
    } finally {
      configureClient({ csrfToken: undefined });
      setJoined(undefined);
      setStatus({ kind: 'signed-out', reason: 'You are signed out.' });
    }
  }, []);

  const enterJoined = useCallback(
    (session: Session, membership: Joined) => {
      setJoined(membership);
      adopt(session);
    },
    [adopt],
  );
  const forgetJoined = useCallback(() => setJoined(undefined), []);
  // Leaving the welcome page by any link forgets the token too: going back there must not show it again.
  const onJoinedPage = useMatch(JOINED_PATH) !== null;
  const wasOnJoinedPage = useRef(onJoinedPage);
  useEffect(() => {
    if (wasOnJoinedPage.current && !onJoinedPage) setJoined(undefined);
    wasOnJoinedPage.current = onJoinedPage;
  }, [onJoinedPage]);

  const state = useMemo(() => {
    if (status.kind !== 'signed-in') return undefined;
    const permissions = new Set(status.session.permissions);
    return { session: status.session, can: (p: Permission) => permissions.has(p), signOut, joined, enterJoined, forgetJoined };
  }, [status, signOut, joined, enterJoined, forgetJoined]);

  if (status.kind === 'loading') return <p className="page-status">Loading…</p>;
  if (status.kind === 'error') return <p className="page-status error">The service did not answer: {status.message}</p>;
  if (status.kind === 'signed-out') return <SignedOut notice={status.reason} onSignedIn={adopt} onJoined={enterJoined} />;
  // Another membership (an invitation just accepted) starts the console afresh: nothing a page loaded for the previous one stays.
  const membership = `${status.session.user.id}/${status.session.organization.id}`;
  return (
    <SessionContext.Provider value={state}>
      <Fragment key={membership}>{children}</Fragment>
    </SessionContext.Provider>
  );
}

/** Signed out: an invitation link's own page, or the sign-in page. */
function SignedOut({
  notice,
  onSignedIn,
  onJoined,
}: {
  notice?: string;
  onSignedIn(session: Session): void;
  onJoined(session: Session, joined: Joined): void;
}) {
  const code = useMatch('/invitations/:code')?.params.code;
  if (code && `/invitations/${code}` !== JOINED_PATH) return <InvitationSignIn code={code} notice={notice} onJoined={onJoined} />;
  return <SignInPage notice={notice} onSignedIn={onSignedIn} />;
}
