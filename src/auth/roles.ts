/**
 * Permissions of interface.md 5.3, plus dashboard and organization
 * administration permissions this service defines. `packages:admin`
 * installs and uninstalls packages, which create and delete workflows, data
 * sources and dashboards: only roles holding both workflows:admin and
 * dashboards:admin have it. `shares:admin` grants and revokes shares of data
 * store tables with other organizations: opening the organization's data to
 * another is the organization's decision, so only its administrators have it.
 */
export const PERMISSIONS = [
  'secrets:view',
  'secrets:admin',
  'workflows:view',
  'workflows:admin',
  'dashboards:view',
  'dashboards:admin',
  'members:admin',
  'packages:admin',
  'shares:admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'developer', 'analyst', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** The role table (the README documents the same table). */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  developer: ['secrets:view', 'secrets:admin', 'workflows:view', 'workflows:admin', 'dashboards:view', 'dashboards:admin', 'packages:admin'],
  analyst: ['workflows:view', 'dashboards:view', 'dashboards:admin'],
  viewer: ['workflows:view', 'dashboards:view'],
};

export function roleHas(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/**
 * What a token acts with: the permissions of its member's current role that
 * the token's own list names (all of the role's when it has none), in the
 * order of PERMISSIONS. Read at each request, so a role narrowed later
 * narrows every token of the member.
 */
export function effectivePermissions(role: Role, tokenPermissions: readonly Permission[] | null): Permission[] {
  return ROLE_PERMISSIONS[role].filter((p) => tokenPermissions === null || tokenPermissions.includes(p));
}

/** Seniority of roles: a member may mint tokens only for members strictly below them. */
const ROLE_RANK: Record<Role, number> = { owner: 4, admin: 3, developer: 2, analyst: 1, viewer: 0 };

/** True when `a` is strictly more senior than `b`. */
export function outranks(a: Role, b: Role): boolean {
  return ROLE_RANK[a] > ROLE_RANK[b];
}
