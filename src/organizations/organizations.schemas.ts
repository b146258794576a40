import { PERMISSIONS, ROLES } from '../auth/roles';
import { z } from '../openapi/zod';
import { PLAN_TIERS } from './organization.entity';

export const OrganizationName = z.string().trim().min(1).max(200);

export const OrganizationSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    name: z.string(),
    plan: z.enum(PLAN_TIERS),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Organization');

export const ActiveOrganizationSchema = OrganizationSchema.extend({
  role: z.enum(ROLES),
  permissions: z.array(z.enum(PERMISSIONS)),
}).openapi('ActiveOrganization');

/** Plans are set by operators (`npm run admin -- create-org --plan`), not by callers. */
export const CreateOrganizationBody = z.strictObject({ name: OrganizationName });
export const UpdateOrganizationBody = z.strictObject({ name: OrganizationName });

export const MemberSchema = z
  .object({ userId: z.uuid(), email: z.string(), name: z.string().nullable(), role: z.enum(ROLES), createdAt: z.string() })
  .openapi('Member');

export const AddMemberBody = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(200).optional(),
  role: z.enum(ROLES),
});
export const ChangeRoleBody = z.strictObject({ role: z.enum(ROLES) });
export const UserIdParams = z.object({ userId: z.uuid() });

export const IssueTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

export const AccessTokenSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    tokenPrefix: z.string(),
    organizationId: z.uuid(),
    userId: z.uuid(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().optional(),
    revokedAt: z.string().nullable().optional(),
    createdAt: z.string(),
  })
  .openapi('AccessToken');

export const IssuedTokenSchema = AccessTokenSchema.extend({
  token: z.string().openapi({ description: 'Shown once; only its hash is stored.' }),
}).openapi('IssuedAccessToken');

export const TokenIdParams = z.object({ id: z.uuid() });
