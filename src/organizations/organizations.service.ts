import type { EntityManager } from 'typeorm';
import { createBuiltInSources } from '../data-sources/built-in-sources';
import { type Permission, type Role, roleHas } from '../auth/roles';
import type { IssuedToken, TokensService } from '../auth/tokens.service';
import type { OrganizationKeys } from '../crypto/organization-keys';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import type { Organization, PlanTier } from './organization.entity';
import type { MemberRow, OrganizationsRepository } from './organizations.repository';
import type { RevokedShare } from '../shares/shares.repository';
import type { SharesService } from '../shares/shares.service';
import { assertMayGrant } from './role-rules';

/** What a member's departure or demotion did to the shares they granted. */
export interface GrantsOutcome {
  sharesRevoked: number;
  sharesKept: number;
}

/** A member's role change or removal, and who makes it. */
export interface MemberChange {
  /** Who changes it: their role, and what their token may do (a token with chosen permissions may lack shares:admin). */
  actor: { userId: string; role: Role; permissions: ReadonlySet<Permission> };
  /** An owner keeps the shares the member granted (becoming their granter) instead of revoking them. */
  keepShares?: boolean;
}

/** Organizations and their members. Members join through invitations (InvitationsService). */
export class OrganizationsService {
  constructor(
    private readonly orgs: OrganizationsRepository,
    private readonly tokens: TokensService,
    private readonly keys: OrganizationKeys,
    /** Shares end with the standing of the member who granted them (offboarding). */
    private readonly grants: Pick<SharesService, 'endGrantsOf' | 'closeRevoked'>,
    /** After a role change or a removal committed: this process's cached principals go at once (others hear auth_changed). */
    private readonly membershipsChanged: () => void = () => undefined,
  ) {}

  /**
   * Creates an organization with its data key and its first owner (an
   * existing user, or for operators one found or created by e-mail), and
   * issues the owner a personal token bound to the new membership. All or nothing.
   */
  async createOrganization(input: {
    name: string;
    plan: PlanTier;
    owner: { email: string; name?: string | null } | { userId: string };
    tokenName: string;
  }): Promise<{ organization: Organization; userId: string; token: IssuedToken }> {
    return this.orgs.transaction(async (manager) => {
      const organization = await this.orgs.insert({ id: newId(), suid: newSuid(), name: input.name, plan: input.plan }, manager);
      await this.keys.create(organization.id, manager);
      const userId =
        'userId' in input.owner
          ? input.owner.userId
          : (await this.orgs.findOrCreateUser({ id: newId(), email: input.owner.email.toLowerCase(), name: input.owner.name }, manager)).id;
      await this.orgs.addMember(organization.id, userId, 'owner', manager);
      await createBuiltInSources(manager, organization.id);
      const token = await this.tokens.issuePersonal(organization.id, userId, input.tokenName, manager);
      return { organization, userId, token };
    });
  }

  async get(organizationId: string): Promise<Organization> {
    const org = await this.orgs.findById(organizationId);
    if (!org) throw new NotFoundError('Organization');
    return org;
  }

  /** The organization named by id or suid (operators). */
  async getByRef(ref: string): Promise<Organization> {
    const org = await this.orgs.findByRef(ref);
    if (!org) throw new NotFoundError('Organization');
    return org;
  }

  /** Operators only (npm run admin -- set-plan): callers never choose their plan. */
  async setPlan(ref: string, plan: PlanTier): Promise<{ organization: Organization; previousPlan: PlanTier }> {
    const organization = await this.getByRef(ref);
    const previousPlan = organization.plan;
    await this.orgs.setPlan(organization.id, plan);
    return { organization: { ...organization, plan }, previousPlan };
  }

  async rename(organizationId: string, name: string): Promise<Organization> {
    await this.orgs.rename(organizationId, name);
    return this.get(organizationId);
  }

  listMembers(organizationId: string, page: Page) {
    return this.orgs.listMembers(organizationId, page);
  }

  /** The member with this e-mail (operators issuing a token to someone who lost theirs). */
  async memberByEmail(organizationId: string, email: string): Promise<MemberRow> {
    const member = await this.orgs.findMemberByEmail(organizationId, email.toLowerCase());
    if (!member) throw new NotFoundError('Member');
    return member;
  }

  /**
   * Changes a member's role; the organization always keeps at least one
   * owner. A member who loses the right to share (shares:admin) takes the
   * shares they granted with them: revoked in the same transaction, unless
   * an owner keeps them (MemberChange.keepShares).
   */
  async changeRole(organizationId: string, userId: string, role: Role, change: MemberChange): Promise<MemberRow & GrantsOutcome> {
    assertMayKeepShares(change);
    const { member, revoked, kept } = await this.orgs.transaction(async (manager) => {
      const owners = await this.orgs.lockOwners(organizationId, manager);
      const member = await this.orgs.findMember(organizationId, userId, manager);
      if (!member) throw new NotFoundError('Member');
      assertMayGrant(change.actor.role, member.role);
      assertMayGrant(change.actor.role, role);
      if (member.role === 'owner' && role !== 'owner' && owners <= 1) {
        throw new ValidationError('The organization must keep at least one owner', undefined, 'last_owner');
      }
      await this.orgs.setRole(organizationId, userId, role, manager);
      const losesSharing = roleHas(member.role, 'shares:admin') && !roleHas(role, 'shares:admin');
      const ended = losesSharing ? await this.endGrants(manager, organizationId, userId, change) : { revoked: [], kept: 0 };
      return { member: { ...member, role }, ...ended };
    });
    return this.afterChange(member, revoked, kept);
  }

  /** Removes a member; their tokens here go with the membership, and the shares they granted unless an owner keeps them. */
  async removeMember(organizationId: string, userId: string, change: MemberChange): Promise<MemberRow & GrantsOutcome> {
    assertMayKeepShares(change);
    const { member, revoked, kept } = await this.orgs.transaction(async (manager) => {
      const owners = await this.orgs.lockOwners(organizationId, manager);
      const member = await this.orgs.findMember(organizationId, userId, manager);
      if (!member) throw new NotFoundError('Member');
      assertMayGrant(change.actor.role, member.role);
      if (member.role === 'owner' && owners <= 1) {
        throw new ValidationError('The organization must keep at least one owner', undefined, 'last_owner');
      }
      const ended = await this.endGrants(manager, organizationId, userId, change);
      await this.orgs.removeMember(organizationId, userId, manager);
      return { member, ...ended };
    });
    return this.afterChange(member, revoked, kept);
  }

  /** The member's row lock is held (findMember): a share they are granting right now commits first or is refused. */
  private endGrants(manager: EntityManager, organizationId: string, userId: string, change: MemberChange) {
    // An owner removing themselves cannot keep their own shares: nobody would be left answering for them.
    const keptBy = change.keepShares && change.actor.userId !== userId ? change.actor.userId : undefined;
    if (change.keepShares && !keptBy) {
      throw new ValidationError('A member cannot keep the shares they granted themselves; another owner can', undefined, 'own_shares');
    }
    return this.grants.endGrantsOf(manager, organizationId, userId, keptBy);
  }

  private async afterChange(member: MemberRow, revoked: RevokedShare[], kept: number): Promise<MemberRow & GrantsOutcome> {
    this.membershipsChanged();
    await this.grants.closeRevoked(revoked);
    return { ...member, sharesRevoked: revoked.length, sharesKept: kept };
  }
}

/** Keeping a departing member's shares keeps another organization's access to data: an owner's decision. */
function assertMayKeepShares(change: MemberChange): void {
  if (change.keepShares && (change.actor.role !== 'owner' || !change.actor.permissions.has('shares:admin'))) {
    throw new ForbiddenError(
      'Only an owner, with a token holding shares:admin, can keep the shares a member granted; without keepShares they are revoked',
      'owner_required',
    );
  }
}
