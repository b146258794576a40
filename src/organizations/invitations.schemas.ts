import { z } from '../openapi/zod';
import { ROLES } from '../auth/roles';

/** The code is the secret: it travels in the body, never in a URL that logs and browser history keep. */
export const PreviewInvitationBody = z.strictObject({
  code: z.string().min(1).max(200),
});

export const InvitationPreviewSchema = z
  .object({
    organizationName: z.string(),
    invitedBy: z.object({ name: z.string().nullable(), email: z.string() }).nullable().openapi({ description: 'Who invited; null once their account is gone' }),
    role: z.enum(ROLES),
    email: z.string().openapi({ description: 'The invited address: accepting with an account takes one of its own tokens' }),
    expiresAt: z.string(),
  })
  .openapi('InvitationPreview');
