import { Navigate, useNavigate } from 'react-router';
import { formatTime } from '../ui/format';
import { Page } from '../ui/page';
import { SecretOnce } from '../ui/secret-once';
import { useSession } from './session';

/**
 * Where every accepted invitation ends: the console signed in to the new
 * membership, and the membership's access token shown once. The token lives
 * only in memory (session-provider.tsx): dismissing this, signing out or
 * reloading forgets it, and the address then leads to the console's start.
 */
export function JoinedPage() {
  const { session, joined, forgetJoined } = useSession();
  const navigate = useNavigate();
  if (!joined) return <Navigate to="/" replace />;

  const done = () => {
    void navigate('/', { replace: true });
    forgetJoined();
  };

  return (
    <Page title={`Welcome to ${joined.organizationName}`}>
      <p>
        You are now a member of <strong>{joined.organizationName}</strong> as <strong>{joined.role}</strong>, and the console is signed in to it as{' '}
        {session.user.email}.
      </p>
      <SecretOnce
        title="Access token"
        value={joined.token}
        onDone={done}
        usage={
          <>
            It signs you in to {joined.organizationName} as {session.user.email}.{' '}
            {joined.sessionHours !== null && session.expiresAt ? (
              <>
                This console session lasts {joined.sessionHours} hours, until {formatTime(session.expiresAt)}.
              </>
            ) : null}{' '}
            Keep the token to sign in again after that, or in another browser, or mint a new one in Settings → Tokens before the session ends.
          </>
        }
      />
    </Page>
  );
}
