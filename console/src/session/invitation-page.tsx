import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorBox } from '../ui/error-box';
import { Page } from '../ui/page';
import { acceptInvitation, acceptProblem, JOINED_PATH } from './invitations';
import { ClosedInvitation, InvitationSummary, useInvitationPreview } from './invitation-summary';
import { useSession } from './session';

/**
 * An invitation link opened while signed in: what it offers, and one Accept.
 * The API takes the signed-in person's own account; the console then signs
 * in to the new membership and shows its token once (joined-page.tsx). A
 * link for another address is not offered: the API would refuse it.
 */
export function InvitationPage() {
  const { code = '' } = useParams();
  const { session, signOut, enterJoined } = useSession();
  const navigate = useNavigate();
  const invitation = useInvitationPreview(code);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const preview = invitation.data;
  const forMe = preview?.email.toLowerCase() === session.user.email.toLowerCase();

  async function accept() {
    if (!preview) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const { session: joinedSession, joined } = await acceptInvitation(code);
      // Through the router, so the page it draws next is the joined one: this code is used, and its page must not be drawn again.
      void navigate(JOINED_PATH, { replace: true });
      enterJoined(joinedSession, joined);
    } catch (e) {
      setProblem(acceptProblem(e, preview));
      setBusy(false);
    }
  }

  return (
    <Page title={preview ? `Invitation to ${preview.organizationName}` : 'Invitation'}>
      {invitation.loading && <p className="page-status">Loading the invitation…</p>}
      <ErrorBox error={invitation.error} />
      {preview === null && (
        <>
          <ClosedInvitation />
          <Link to="/">Back to the console</Link>
        </>
      )}
      {preview && <InvitationSummary preview={preview} />}
      {preview && !forMe && (
        <>
          <p>
            This invitation is for <strong>{preview.email}</strong>, and you are signed in as <strong>{session.user.email}</strong>. To accept it, sign out and
            open the link again: you can then accept as {preview.email}, with one of its tokens or as someone new.
          </p>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </>
      )}
      {preview && forMe && (
        <>
          <p>
            You are signed in as <strong>{session.user.email}</strong> in {session.organization.name}. Accepting makes your account a member of{' '}
            {preview.organizationName} as {preview.role}, switches the console to it, and shows the new membership&apos;s access token once.
          </p>
          {problem && (
            <p role="alert" className="error">
              {problem}
            </p>
          )}
          <button type="button" className="primary" onClick={() => void accept()} disabled={busy}>
            Accept invitation
          </button>
        </>
      )}
    </Page>
  );
}
