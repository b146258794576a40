import { formatTime } from '../ui/format';
import { useApi } from '../ui/use-api';
import { type InvitationPreview, previewInvitation } from './invitations';

/** The invitation behind a link's code, read once per code: data is null when the code opens none. */
export function useInvitationPreview(code: string) {
  return useApi(`invitation:${code}`, (signal) => previewInvitation(code, signal));
}

/** What accepting gives, and to whom: the organization, the role, who invited, the invited address and the deadline. */
export function InvitationSummary({ preview }: { preview: InvitationPreview }) {
  const inviter = preview.invitedBy;
  return (
    <dl className="facts">
      <div>
        <dt>Organization</dt>
        <dd>
          <strong>{preview.organizationName}</strong>
        </dd>
      </div>
      <div>
        <dt>Role</dt>
        <dd>
          <strong>{preview.role}</strong>
        </dd>
      </div>
      <div>
        <dt>Invited by</dt>
        <dd>{inviter ? (inviter.name ? `${inviter.name} (${inviter.email})` : inviter.email) : 'a member who has since left'}</dd>
      </div>
      <div>
        <dt>For</dt>
        <dd>{preview.email}</dd>
      </div>
      <div>
        <dt>Expires</dt>
        <dd>{formatTime(preview.expiresAt)}</dd>
      </div>
    </dl>
  );
}

/** A code that opens no invitation: the API does not say why, so neither does the page. */
export function ClosedInvitation() {
  return (
    <p role="alert">
      This invitation cannot be accepted: the link is wrong, or the invitation has expired, been revoked or been used already. Ask whoever invited you for a new
      link.
    </p>
  );
}
