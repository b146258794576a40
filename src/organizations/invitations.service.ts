import type { EntityManager } from 'typeorm';
import type { Role } from '../auth/roles';
import { generateToken, hashToken } from '../auth/token-secret';
import { assertWholePerson, type IssuedToken, type TokensService } from '../auth/tokens.service';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors/errors';
import type { AuthContext } from '../http/request-context';
import { newId } from '../ids';
import type { Page } from '../http/pagination';
import type { Organization } from './organization.entity';
import type { InvitationRow, InvitationsRepository } from './invitations.repository';
import type { OrganizationsRepository } from './organizations.repository';
import { assertMayGrant } from './role-rules';

/** How long an invitation can be accepted. */
export const INVITATION_TTL_DAYS = 7;

/** The one answer for a code that does not open an invitation, whatever the reason. */
const CLOSED_INVITATION = 'Invitation (it may have expired, been revoked or been used already)';

export interface InvitationPreview {
  organizationName: string;
  invitedBy: { name: string | null; email: string } | null;
  role: Role;
  email: string;
  expiresAt: string;
}

export interface AcceptedInvitation {
  organization: Organization;
  role: Role;
  userId: string;
  token: IssuedToken;
}

/**
 * Adding someone is an invitation: it grants nothing until the invited
 * person accepts it with its secret code, which the inviting organization
 * hands over (the service sends no e-mail). Someone who is already a member
 * somewhere accepts with one of their own personal tokens; an address with
 * no account gets one. Either way the answer is a personal token bound
 * to the new membership, and nothing else: it acts only in this organization.
 */
export class InvitationsService {
  constructor(
    private readonly orgs: OrganizationsRepository,
    private readonly invitations: InvitationsRepository,
    private readonly tokens: TokensService,
  ) {}

  /** Creates an invitation and answers it with its code, shown once. Only an owner may invite an owner. */
  async invite(inviter: Pick<AuthContext, 'organizationId' | 'userId' | 'role'>, input: { email: string; name?: string; role: Role }) {
    assertMayGrant(inviter.role, input.role);
    const email = input.email.toLowerCase();
    const code = generateToken('fbi_');
    const row: InvitationRow = {
      id: newId(),
      organizationId: inviter.organizationId,
      email,
      name: input.name ?? null,
      role: input.role,
      invitedBy: inviter.userId,
      expiresAt: new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000),
      createdAt: new Date(),
    };
    const id = await this.orgs.transaction(async (manager) => {
      if (await this.orgs.findMemberByEmail(inviter.organizationId, email, manager)) throw new ConflictError(`${email} is already a member`, 'already_member');
      return this.invitations.upsertOpen({ ...row, codeHash: code.hash }, manager);
    });
    return { ...row, id, code: code.token };
  }

  listOpen(organizationId: string, page: Page) {
    return this.invitations.listOpen(organizationId, page);
  }

  async revoke(organizationId: string, id: string): Promise<InvitationRow> {
    const revoked = await this.invitations.revoke(organizationId, id);
    if (!revoked) throw new NotFoundError('Invitation');
    return revoked;
  }

  /**
   * What the holder of a code may know before accepting: the organization,
   * who invited, the role and the invited address. An unknown, expired,
   * revoked or used code is one and the same 404, so the answer tells nothing
   * about codes that do not work.
   */
  async preview(code: string): Promise<InvitationPreview> {
    const row = await this.invitations.findOpenPreview(hashToken(code));
    if (!row) throw new NotFoundError(CLOSED_INVITATION);
    const invitedBy = row.inviterEmail === null ? null : { name: row.inviterName, email: row.inviterEmail };
    return { organizationName: row.organizationName, invitedBy, role: row.role, email: row.email, expiresAt: row.expiresAt.toISOString() };
  }

  /**
   * Accepts an invitation by its code. `caller` is the accepting person's
   * own token when one was sent: it must be personal and belong to the
   * invited address. Without one, the address must not have an account yet.
   */
  async accept(code: string, name: string | undefined, caller?: AuthContext): Promise<AcceptedInvitation> {
    if (caller) assertWholePerson(caller, 'accept an invitation');
    return this.orgs.transaction(async (manager) => {
      const invitation = await this.invitations.lockOpenByCode(hashToken(code), manager);
      if (!invitation) throw new NotFoundError(CLOSED_INVITATION);
      let userId: string;
      if (caller) {
        const user = await this.orgs.findUserById(caller.userId, manager);
        if (user?.email !== invitation.email) {
          throw new ForbiddenError('This invitation is for another e-mail address than the account of this token', 'invitation_for_another_address');
        }
        userId = caller.userId;
      } else {
        userId = await this.accountWithoutToken(invitation, name, manager);
      }
      if (!(await this.orgs.addMember(invitation.organizationId, userId, invitation.role, manager))) {
        throw new ConflictError(`${invitation.email} is already a member`, 'already_member');
      }
      await this.invitations.markAccepted(invitation.id, userId, manager);
      const token = await this.tokens.issuePersonal(invitation.organizationId, userId, 'invitation', manager);
      const organization = (await this.orgs.findById(invitation.organizationId, manager))!;
      return { organization, role: invitation.role, userId, token };
    });
  }

  /**
   * The account an invitation accepted without a token joins: a new one, or
   * an existing one that belongs to no organization (so no token of it can
   * exist to accept with). An account that is a member somewhere must accept
   * with one of its own tokens: the code alone never takes it over.
   */
  private async accountWithoutToken(invitation: InvitationRow, name: string | undefined, manager: EntityManager): Promise<string> {
    const existing = await this.orgs.findUserByEmail(invitation.email, manager);
    if (existing && (await this.orgs.countMemberships(existing.id, manager)) === 0) return existing.id;
    const id = newId();
    if (!existing && (await this.orgs.insertUser({ id, email: invitation.email, name: name ?? invitation.name }, manager))) return id;
    throw new ConflictError(
      `An account for ${invitation.email} exists: accept with one of its own access tokens (Authorization: Bearer …)`,
      'sign_in_required',
    );
  }
}
