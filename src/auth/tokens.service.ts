import type { EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import type { AuthContext } from '../http/request-context';
import { newId } from '../ids';
import type { AccessToken, TokenKind } from './access-token.entity';
import type { AccessTokensRepository } from './access-tokens.repository';
import { outranks, type Permission, PERMISSIONS, type Role } from './roles';
import { generateToken } from './token-secret';

/** A token as minted: the secret is in `token`, shown this once. */
export interface IssuedToken {
  id: string;
  name: string;
  token: string;
  tokenPrefix: string;
  kind: TokenKind;
  organizationId: string;
  userId: string;
  permissions: Permission[] | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/** What a minting route asks for: a name, and optionally an expiry and the permissions the token may use. */
export interface MintRequest {
  name: string;
  expiresInDays?: number;
  permissions?: Permission[];
}

/** How the tokens service learns a member's role (the organizations domain owns memberships). */
export interface MemberRoles {
  roleOf(organizationId: string, userId: string): Promise<Role | undefined>;
}

/** The caller of a minting route: who acts, with which token. */
export type Minter = Pick<
  AuthContext,
  'userId' | 'organizationId' | 'role' | 'permissions' | 'tokenId' | 'tokenKind' | 'tokenIssuedBy' | 'tokenExpiresAt' | 'tokenPermissions'
>;

const DAY_MS = 86_400_000;

/** Live tokens one member may hold in one organization: enough for every machine and script, and a bound on what minting can pile up. */
export const MAX_LIVE_TOKENS = 100;

/**
 * Access tokens. Each belongs to one membership (user + organization) and
 * acts only there. Minting never widens what the minting token could do: a
 * token minted with another is of the same kind, for the same membership
 * (or, for a member admin, a less senior member), expires no later, holds
 * no permission the minting token does not hold now, and is revoked with it.
 */
export class TokensService {
  constructor(
    private readonly tokens: AccessTokensRepository,
    private readonly members: MemberRoles,
  ) {}

  /** The user's own credential for a membership: operators, new organizations, accepted invitations. */
  issuePersonal(organizationId: string, userId: string, name: string, manager?: EntityManager): Promise<IssuedToken> {
    return this.insert({ organizationId, userId, name, kind: 'personal', issuedBy: null, parentId: null, permissions: null, expiresAt: null }, manager);
  }

  /** `POST /tokens`: another token of the caller's own membership, as narrow as the one that asks. */
  mintForCaller(caller: Minter, request: MintRequest): Promise<IssuedToken> {
    return this.insert({
      organizationId: caller.organizationId,
      userId: caller.userId,
      name: request.name,
      kind: caller.tokenKind,
      issuedBy: caller.tokenKind === 'delegated' ? caller.tokenIssuedBy : null,
      parentId: caller.tokenId,
      permissions: permissionsFor(caller, request.permissions),
      expiresAt: earliest(expiry(request.expiresInDays), caller.tokenExpiresAt),
    });
  }

  /**
   * `POST /organization/members/{userId}/tokens`: a delegated token for a
   * member the caller outranks (an owner for admins and below, an admin for
   * developers and below). It lives only while the caller stays senior to them.
   */
  async mintForMember(caller: Minter, userId: string, request: MintRequest): Promise<IssuedToken> {
    assertPersonal(caller, 'mint tokens for other members');
    await this.assertOutranks(caller, userId);
    return this.insert({
      organizationId: caller.organizationId,
      userId,
      name: request.name,
      kind: 'delegated',
      issuedBy: caller.userId,
      parentId: caller.tokenId,
      permissions: permissionsFor(caller, request.permissions),
      expiresAt: earliest(expiry(request.expiresInDays), caller.tokenExpiresAt),
    });
  }

  /** Live tokens of the caller's membership. */
  listOwn(caller: Minter, page: Page) {
    return this.tokens.listForMembership(caller.organizationId, caller.userId, page);
  }

  async revokeOwn(caller: Minter, id: string): Promise<AccessToken> {
    // A token with chosen permissions must not end the wider tokens of its member (its parent among them).
    if (caller.tokenPermissions !== null && id !== caller.tokenId && !(await this.tokens.isMintedFrom(id, caller.tokenId))) {
      throw new ForbiddenError(
        'A token with chosen permissions can revoke only itself and the tokens minted from it; use a token without chosen permissions',
        'token_scope_too_narrow',
      );
    }
    const revoked = await this.tokens.revoke(id, caller.organizationId, caller.userId);
    if (!revoked) throw new NotFoundError('Access token');
    return revoked;
  }

  /** Live tokens of a member the caller outranks. */
  async listForMember(caller: Minter, userId: string, page: Page) {
    await this.assertOutranks(caller, userId);
    return this.tokens.listForMembership(caller.organizationId, userId, page);
  }

  async revokeForMember(caller: Minter, userId: string, id: string): Promise<AccessToken> {
    await this.assertOutranks(caller, userId);
    const revoked = await this.tokens.revoke(id, caller.organizationId, userId);
    if (!revoked) throw new NotFoundError('Access token');
    return revoked;
  }

  private async assertOutranks(caller: Minter, userId: string): Promise<void> {
    if (userId === caller.userId) {
      throw new ValidationError("These routes manage other members' tokens; use /tokens for your own", [{ path: 'userId', message: 'is you' }], 'own_tokens');
    }
    const role = await this.members.roleOf(caller.organizationId, userId);
    if (!role) throw new NotFoundError('Member');
    if (!outranks(caller.role, role)) {
      throw new ForbiddenError(
        `A member with the ${caller.role} role manages tokens only of members below it; this member is ${role === caller.role ? 'also ' : ''}${role}`,
        'insufficient_role',
      );
    }
  }

  private async insert(
    token: Pick<AccessToken, 'organizationId' | 'userId' | 'name' | 'kind' | 'issuedBy' | 'parentId' | 'permissions' | 'expiresAt'>,
    manager?: EntityManager,
  ): Promise<IssuedToken> {
    const secret = generateToken();
    const row = { ...token, id: newId(), tokenHash: secret.hash, tokenPrefix: secret.prefix, createdAt: new Date() };
    const outcome = await this.tokens.insertWithinLimit(row, MAX_LIVE_TOKENS, manager);
    if (outcome === 'limit') {
      throw new ValidationError(`A member holds at most ${MAX_LIVE_TOKENS} live tokens in an organization; revoke some first`, undefined, 'too_many_tokens');
    }
    // The minting token was revoked between authentication and now.
    if (outcome === 'parent_revoked') throw new UnauthorizedError('Access token is invalid, expired or revoked');
    const { id, name, kind, organizationId, userId, permissions, expiresAt, createdAt } = row;
    return { id, name, token: secret.token, tokenPrefix: secret.prefix, kind, organizationId, userId, permissions, expiresAt, createdAt };
  }
}

/** Acting as a person beyond one's own membership (vouching for others, joining or creating organizations) takes that person's own token. */
export function assertPersonal(caller: Pick<AuthContext, 'tokenKind'>, action: string): void {
  if (caller.tokenKind !== 'personal') {
    throw new ForbiddenError(`Only a personal token can ${action}; this token was minted for you by another member`, 'personal_token_required');
  }
}

/**
 * Joining or creating an organization issues a token with every permission of the new membership: a token with
 * chosen permissions cannot do it, or a read-only token would yield a full one.
 */
export function assertWholePerson(caller: Pick<AuthContext, 'tokenKind' | 'tokenPermissions'>, action: string): void {
  assertPersonal(caller, action);
  if (caller.tokenPermissions !== null) {
    throw new ForbiddenError(`A token with chosen permissions cannot ${action}; use a personal token without chosen permissions`, 'token_scope_too_narrow');
  }
}

/**
 * The permissions a new token is minted with: the chosen ones, each of which
 * the minting token must hold now (its role's, narrowed by its own list), or,
 * when none are chosen, the minting token's own list (null: the role's), so
 * minting never widens.
 */
function permissionsFor(caller: Minter, chosen: Permission[] | undefined): Permission[] | null {
  if (chosen === undefined) return caller.tokenPermissions === null ? null : [...caller.tokenPermissions];
  const missing = chosen.filter((p) => !caller.permissions.has(p));
  if (missing.length > 0) {
    const held = PERMISSIONS.filter((p) => caller.permissions.has(p));
    throw new ValidationError(
      `A token can be given only permissions the token minting it holds; this one does not hold ${missing.join(', ')} (it holds ${held.join(', ') || 'none'})`,
      missing.map((p) => ({ path: `permissions.${chosen.indexOf(p)}`, message: `is not held by the minting token: ${p}` })),
      'permission_not_held',
    );
  }
  // Changing something one cannot read is refused: e.g. secrets:admin alone would let a token point a stored secret elsewhere
  // (PATCH keepSecrets) without ever being able to read it, a power no role has.
  const blind = chosen.filter((p) => p.endsWith(':admin') && PERMISSIONS.includes(viewOf(p)) && !chosen.includes(viewOf(p)));
  if (blind.length > 0) {
    throw new ValidationError(
      `A token that changes something must be able to read it: add ${blind.map(viewOf).join(', ')} to go with ${blind.join(', ')}`,
      blind.map((p) => ({ path: `permissions.${chosen.indexOf(p)}`, message: `needs ${viewOf(p)} too` })),
      'admin_without_view',
    );
  }
  return PERMISSIONS.filter((p) => chosen.includes(p));
}

/** `secrets:admin` → `secrets:view` (not every admin permission has one: `members:admin` does not). */
const viewOf = (p: Permission) => p.replace(/:admin$/, ':view') as Permission;

const expiry = (days?: number) => (days ? new Date(Date.now() + days * DAY_MS) : null);

/** The earlier of two expiries, null meaning never. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a < b ? a : b;
}
