import type { EntityManager } from 'typeorm';
import { AccessTokensRepository } from '../auth/access-tokens.repository';
import type { Role } from '../auth/roles';
import { generateToken } from '../auth/token-secret';
import { OrganizationKeys } from '../crypto/organization-keys';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import type { Organization, PlanTier } from './organization.entity';
import { MemberRow, OrganizationsRepository } from './organizations.repository';

export interface IssuedToken {
  id: string;
  name: string;
  token: string;
  tokenPrefix: string;
  organizationId: string;
  userId: string;
  expiresAt: Date | null;
  createdAt: Date;
}

/** Organizations, their members and the tokens members act with. */
export class OrganizationsService {
  constructor(
    private readonly orgs: OrganizationsRepository,
    private readonly tokens: AccessTokensRepository,
    private readonly keys: OrganizationKeys,
  ) {}

  /**
   * Creates an organization with its data key and its first owner (found or
   * created by e-mail, or an existing user), and issues the owner a token.
   * All or nothing.
   */
  async createOrganization(input: {
    name: string;
    plan: PlanTier;
    owner: { email: string; name?: string | null } | { userId: string };
    /** Name of a token to issue to the owner; no token when omitted. */
    tokenName?: string;
  }): Promise<{ organization: Organization; userId: string; token?: IssuedToken }> {
    return this.orgs.transaction(async (manager) => {
      const organization = await this.orgs.insert({ id: newId(), suid: newSuid(), name: input.name, plan: input.plan }, manager);
      await this.keys.create(organization.id, manager);
      const userId =
        'userId' in input.owner
          ? input.owner.userId
          : (await this.orgs.findOrCreateUser({ id: newId(), email: input.owner.email.toLowerCase(), name: input.owner.name }, manager)).id;
      await this.orgs.addMember(organization.id, userId, 'owner', manager);
      const token = input.tokenName ? await this.issueToken(userId, organization.id, input.tokenName, null, manager) : undefined;
      return { organization, userId, token };
    });
  }

  async get(organizationId: string): Promise<Organization> {
    const org = await this.orgs.findById(organizationId);
    if (!org) throw new NotFoundError('Organization');
    return org;
  }

  listForUser(userId: string) {
    return this.orgs.listForUser(userId);
  }

  async rename(organizationId: string, name: string): Promise<Organization> {
    await this.orgs.rename(organizationId, name);
    return this.get(organizationId);
  }

  listMembers(organizationId: string): Promise<MemberRow[]> {
    return this.orgs.listMembers(organizationId);
  }

  /** Adds a user (created on first sight of the e-mail) with a role. Only an owner may add an owner. */
  async addMember(organizationId: string, actorRole: Role, input: { email: string; name?: string | null; role: Role }): Promise<MemberRow> {
    assertMayGrant(actorRole, input.role);
    return this.orgs.transaction(async (manager) => {
      const user = await this.orgs.findOrCreateUser({ id: newId(), email: input.email.toLowerCase(), name: input.name }, manager);
      if (!(await this.orgs.addMember(organizationId, user.id, input.role, manager))) {
        throw new ConflictError(`${user.email} is already a member`, 'already_member');
      }
      return (await this.orgs.findMember(organizationId, user.id, manager))!;
    });
  }

  /** Changes a member's role; the organization always keeps at least one owner. */
  async changeRole(organizationId: string, actorRole: Role, userId: string, role: Role): Promise<MemberRow> {
    return this.orgs.transaction(async (manager) => {
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
  }

  async removeMember(organizationId: string, actorRole: Role, userId: string): Promise<MemberRow> {
    return this.orgs.transaction(async (manager) => {
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
  }

  /**
   * Issues a token for a member of the organization (the caller or, for member admins, another member).
   * `issuer` is the member minting a token for someone else: a token for an owner acts as an owner,
   * so only an owner may mint one, and such a token acts only in this organization.
   */
  async issueTokenForMember(
    organizationId: string,
    userId: string,
    name: string,
    expiresInDays?: number,
    issuer?: { userId: string; role: Role },
  ): Promise<IssuedToken> {
    const member = await this.orgs.findMember(organizationId, userId);
    if (!member) throw new NotFoundError('Member');
    if (issuer) assertMayGrant(issuer.role, member.role);
    const expiresAt = expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null;
    return this.orgs.transaction((manager) => this.issueToken(userId, organizationId, name, expiresAt, manager, issuer?.userId ?? null));
  }

  private async issueToken(
    userId: string,
    organizationId: string,
    name: string,
    expiresAt: Date | null,
    manager: EntityManager,
    issuedBy: string | null = null,
  ): Promise<IssuedToken> {
    const secret = generateToken();
    const id = newId();
    const createdAt = new Date();
    await this.tokens.insert(
      { id, userId, organizationId, name, tokenHash: secret.hash, tokenPrefix: secret.prefix, expiresAt, createdAt, issuedBy },
      manager,
    );
    return { id, name, token: secret.token, tokenPrefix: secret.prefix, organizationId, userId, expiresAt, createdAt };
  }
}

function assertMayGrant(actorRole: Role, role: Role): void {
  if (role === 'owner' && actorRole !== 'owner') {
    throw new ForbiddenError('Only an owner can grant, change or remove the owner role', 'owner_required');
  }
}
