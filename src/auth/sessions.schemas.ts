import { z } from '../openapi/zod';
import { PERMISSIONS, ROLES } from './roles';

export const SignInBody = z
  .strictObject({
    token: z.string().min(1).max(200).openapi({ description: 'An access token of the membership to sign in to; it is checked, never stored in the browser' }),
  })
  .openapi('SignIn');

export const SessionSchema = z
  .object({
    csrfToken: z
      .string()
      .nullable()
      .openapi({ description: 'Send as the X-CSRF-Token header on every write made with the session cookie; null for a caller with a bearer token' }),
    expiresAt: z.date().nullable().openapi({ description: 'When the session (or, for a bearer token, the token) ends by itself; null: never' }),
    user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable() }),
    organization: z.object({ id: z.uuid(), suid: z.string(), name: z.string() }),
    role: z.enum(ROLES),
    permissions: z.array(z.enum(PERMISSIONS)),
  })
  .openapi('ConsoleSession');

export const SignedOutSchema = z.object({ signedOut: z.literal(true) }).openapi('SignedOut');
