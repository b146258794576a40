import type { Role } from '../auth/roles';
import type { IssuedToken, TokensService } from '../auth/tokens.service';
import type { OrganizationKeys } from '../crypto/organization-keys';
import { NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import type { Organization, PlanTier } from './organization.entity';
import type { MemberRow, OrganizationsRepository } from './organizations.repository';
import { assertMayGrant } from './role-rules';

/** Organizations and their members. Members join through invitations (InvitationsService). */
export class OrganizationsService {
  constructor(
    private readonly orgs: OrganizationsRepository,
    private readonly tokens: TokensService,
    private readonly keys: OrganizationKeys,
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

  /** Changes a member's role; the organization always keeps at least one owner. */
  async changeRole(organizationId: string, actorRole: Role, userId: string, role: Role): Promise<MemberRow> {
    const changed = await this.orgs.transaction(async (manager) => {
      const owners = await this.orgs.lockOwners(organizationId, manager);
      const member = await this.orgs.findMember(organizationId, userId, manager);
      if (!member) throw new NotFoundError('Member');
      assertMayGrant(actorRole, member.role);
      assertMayGrant(actorRole, role);
      if (member.role === 'owner' && role !== 'owner' && owners <= 1) {
        throw new ValidationError('The organization must keep at least one owner', undefined, 'last_owner');
      }
      await this.orgs.setRole(organizationId, userId, role, manager);
      return { ...member, role };
    });
    this.membershipsChanged();
    return changed;
  }

  /** Removes a member; their tokens here go with the membership. */
  async removeMember(organizationId: string, actorRole: Role, userId: string): Promise<MemberRow> {
    const removed = await this.orgs.transaction(async (manager) => {
      const owners = await this.orgs.lockOwners(organizationId, manager);
      const member = await this.orgs.findMember(organizationId, userId, manager);
      if (!member) throw new NotFoundError('Member');
      assertMayGrant(actorRole, member.role);
      if (member.role === 'owner' && owners <= 1) {
        throw new ValidationError('The organization must keep at least one owner', undefined, 'last_owner');
      }
      await this.orgs.removeMember(organizationId, userId, manager);
      return member;
    });
    this.membershipsChanged();
    return removed;
  }
}
