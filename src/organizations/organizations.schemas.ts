import { PERMISSIONS, ROLES } from '../auth/roles';
import { IssuedTokenSchema } from '../auth/tokens.schemas';
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

export const CreatedOrganizationSchema = OrganizationSchema.extend({
  role: z.literal('owner'),
  token: IssuedTokenSchema.openapi({ description: 'A personal token of the new membership (shown once): the only way to act in the new organization' }),
}).openapi('CreatedOrganization');

/** Plans are set by operators (`npm run admin -- create-org --plan`), not by callers. */
export const CreateOrganizationBody = z.strictObject({ name: OrganizationName });
export const UpdateOrganizationBody = z.strictObject({ name: OrganizationName });

export const MemberSchema = z
  .object({ userId: z.uuid(), email: z.string(), name: z.string().nullable(), role: z.enum(ROLES), createdAt: z.string() })
  .openapi('Member');

const KEEP_SHARES = 'Owners only: keep the shares the member granted, with the calling owner as their granter, instead of revoking them';

export const MemberChangeSchema = MemberSchema.extend({
  sharesRevoked: z.number().int().openapi({ description: 'Shares of data store tables the member granted that this change revoked' }),
  sharesKept: z.number().int().openapi({ description: 'Shares the member granted that the calling owner kept (keepShares)' }),
}).openapi('MemberChange');

export const ChangeRoleBody = z.strictObject({ role: z.enum(ROLES), keepShares: z.boolean().optional().openapi({ description: KEEP_SHARES }) });
export const RemoveMemberQuery = z.strictObject({
  keepShares: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional()
    .openapi({ description: KEEP_SHARES }),
});
export const UserIdParams = z.object({ userId: z.uuid() });

export const InviteBody = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(200).optional(),
  role: z.enum(ROLES),
});

export const InvitationSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(ROLES),
    invitedBy: z.uuid().nullable(),
    expiresAt: z.string(),
    createdAt: z.string(),
  })
  .openapi('Invitation');

export const CreatedInvitationSchema = InvitationSchema.extend({
  code: z.string().openapi({ description: 'Shown once: hand it to the invited person, who accepts with POST /invitations/accept' }),
}).openapi('CreatedInvitation');

export const InvitationIdParams = z.object({ id: z.uuid() });

export const AcceptInvitationBody = z.strictObject({
  code: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(200).optional().openapi({ description: 'Your name, when the invitation creates your account' }),
});

export const AcceptedInvitationSchema = z
  .object({
    organization: OrganizationSchema,
    role: z.enum(ROLES),
    userId: z.uuid(),
    token: IssuedTokenSchema.openapi({ description: 'A personal token of the new membership (shown once)' }),
  })
  .openapi('AcceptedInvitation');
