import { ApiError, configureClient, del, post } from '../api/client';
import type { ApiSchema } from '../api/schemas';
import type { Joined, Session } from './session';

export type InvitationPreview = ApiSchema<'InvitationPreview'>;
type Accepted = ApiSchema<'AcceptedInvitation'>;

/** The address the console shows an accepted invitation's token at (a static route, ranked before invitations/:code). */
export const JOINED_PATH = '/invitations/joined';

/** The open invitation behind a link's code, or null when the code opens none (unknown, expired, revoked or used: the API does not say which). */
export async function previewInvitation(code: string, signal?: AbortSignal): Promise<InvitationPreview | null> {
  try {
    return await post<InvitationPreview>('/invitations/preview', { code }, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Accepts an invitation with what the browser holds: the session cookie of
 * the invited person's account, or nothing (the API then makes the account).
 * Then signs in with the new membership's token, which ends the session the
 * browser held (POST /session), and answers the new session with the token
 * to show once.
 */
export async function acceptInvitation(code: string, name?: string): Promise<{ session: Session; joined: Joined }> {
  const accepted = await post<Accepted>('/invitations/accept', { code, ...(name ? { name } : {}) });
  const session = await post<Session>('/session', { token: accepted.token.token });
  return { session, joined: joinedFrom(accepted, session) };
}

/**
 * Someone with an account, signed out: signs in with one of their own tokens,
 * then accepts with that session. When accepting fails, the session ends
 * again, so a refused invitation leaves the browser as it was.
 */
export async function signInAndAccept(code: string, token: string): Promise<{ session: Session; joined: Joined }> {
  const held = await post<Session>('/session', { token });
  configureClient({ csrfToken: held.csrfToken ?? undefined });
  let accepted: Accepted;
  try {
    accepted = await post<Accepted>('/invitations/accept', { code });
  } catch (error) {
    await del('/session').catch(() => undefined);
    configureClient({ csrfToken: undefined });
    throw error;
  }
  const session = await post<Session>('/session', { token: accepted.token.token });
  return { session, joined: joinedFrom(accepted, session) };
}

/** The membership to show once: the accept's answer, and how long the new session lasts as the server set it (never longer than the token). */
function joinedFrom(accepted: Accepted, session: Session): Joined {
  const sessionHours = session.expiresAt === null ? null : Math.round((Date.parse(session.expiresAt) - Date.now()) / 3_600_000);
  return { organizationName: accepted.organization.name, role: accepted.role, token: accepted.token.token, sessionHours };
}

/** What a refused accept means to the person on the page (the API's messages are written for API callers). */
export function acceptProblem(error: unknown, preview: InvitationPreview): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  switch (error.code) {
    case 'sign_in_required':
      return `An account for ${preview.email} exists already: paste one of its access tokens under "Already have an account?" to accept with it.`;
    case 'invitation_for_another_address':
      return `This invitation is for ${preview.email}, and that token belongs to another account. Use a token of ${preview.email}'s account.`;
    case 'already_member':
      return `${preview.email} is already a member of ${preview.organizationName}: sign in with one of that membership's tokens.`;
    case 'not_found':
      return 'This invitation can no longer be accepted: it has expired, been revoked or been used. Ask whoever invited you for a new link.';
    default:
      return error.message;
  }
}
