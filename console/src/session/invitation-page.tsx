import { useState } from 'react';
import { useParams } from 'react-router';
import { post } from '../api/client';
import type { ApiSchema } from '../api/schemas';
import { ErrorBox } from '../ui/error-box';
import { Page } from '../ui/page';
import { useSession } from './session';

type Accepted = ApiSchema<'AcceptedInvitation'>;

/**
 * An invitation link opened while signed in: accepting it with this session
 * (the API takes the signed-in person's own account) makes a membership in
 * the inviting organization, and the console then signs in to it with the
 * membership's new token, which is never shown.
 */
export function InvitationPage() {
  const { code = '' } = useParams();
  const { session } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function accept() {
    setBusy(true);
    setError(undefined);
    try {
      const accepted = await post<Accepted>('/invitations/accept', { code });
      await post('/session', { token: accepted.token.token });
      // A new session for another organization: start the console afresh in it.
      window.location.assign('/console/');
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  return (
    <Page title="Invitation">
      <p>
        You are signed in as <strong>{session.user.email}</strong> in {session.organization.name}. Accepting makes you a member of the organization that invited
        you, and switches the console to it.
      </p>
      <ErrorBox error={error} />
      <button type="button" className="primary" onClick={() => void accept()} disabled={busy}>
        Accept invitation
      </button>
    </Page>
  );
}
