import { z } from '../openapi/zod';

export const IssueTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional().openapi({ description: 'Never later than the token that mints it' }),
});

export const AccessTokenSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    tokenPrefix: z.string(),
    kind: z.enum(['personal', 'delegated']).openapi({ description: "personal: the user's own; delegated: minted for the user by a more senior member" }),
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
export const MemberTokenParams = z.object({ userId: z.uuid(), id: z.uuid() });
export const MemberParams = z.object({ userId: z.uuid() });
