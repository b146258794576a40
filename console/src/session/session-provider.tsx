import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, configureClient, del, get } from '../api/client';
import { type Permission, type Session, SessionContext } from './session';
import { SignInPage } from './sign-in-page';

type Status = { kind: 'loading' } | { kind: 'signed-out'; reason?: string } | { kind: 'signed-in'; session: Session } | { kind: 'error'; message: string };

/** Asks the server who is signed in (the cookie is HttpOnly), and shows sign-in until someone is. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Status>({ kind: 'loading' });

  const adopt = useCallback((session: Session) => {
    configureClient({ csrfToken: session.csrfToken ?? undefined });
    setStatus({ kind: 'signed-in', session });
  }, []);

  useEffect(() => {
    configureClient({
      onSignedOut: () => {
        configureClient({ csrfToken: undefined });
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
      setStatus({ kind: 'signed-out', reason: 'You are signed out.' });
    }
  }, []);

  const state = useMemo(() => {
    if (status.kind !== 'signed-in') return undefined;
    const permissions = new Set(status.session.permissions);
    return { session: status.session, can: (p: Permission) => permissions.has(p), signOut };
  }, [status, signOut]);

  if (status.kind === 'loading') return <p className="page-status">Loading…</p>;
  if (status.kind === 'error') return <p className="page-status error">The service did not answer: {status.message}</p>;
  if (status.kind === 'signed-out') return <SignInPage notice={status.reason} onSignedIn={adopt} />;
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}
