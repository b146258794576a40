import { z } from '../openapi/zod';
import { PERMISSIONS } from './roles';

export const IssueTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional().openapi({ description: 'Never later than the token that mints it' }),
  permissions: z
    .array(z.enum(PERMISSIONS))
    .min(1)
    .max(PERMISSIONS.length)
    .refine((list) => new Set(list).size === list.length, 'names a permission twice')
    .optional()
    .openapi({
      description:
        "What the token may do: permissions the minting token holds now (any other is refused). The token acts with those of its member's current role that the list names, so a later role change narrows it too. Left out: the minting token's own list (for a token minted with one), else all of the role's.",
    }),
});

export const AccessTokenSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    tokenPrefix: z.string(),
    kind: z.enum(['personal', 'delegated']).openapi({ description: "personal: the user's own; delegated: minted for the user by a more senior member" }),
    organizationId: z.uuid(),
    userId: z.uuid(),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .nullable()
      .openapi({ description: "The permissions it was minted with (it acts with those its member's role still holds); null: all of the role's" }),
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
export const MemberTokenParams = z.object({ userId: z.uuid(), id: z.uuid() });
export const MemberParams = z.object({ userId: z.uuid() });
