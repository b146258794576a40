import { TableName } from '../data-stores/data-stores.schemas';
import { z } from '../openapi/zod';

export const CreateShareBody = z
  .strictObject({
    tableName: TableName,
    sharedToOrganizationId: z.uuid({ error: 'must be an organization id (UUID)' }).optional(),
    sharedToOrganizationSuid: z.string().min(1).max(64).optional(),
    /** The table's name in the recipient organization; the table's own name when left out. */
    alias: TableName.optional(),
  })
  .openapi('CreateShareBody');
export type CreateShareBody = z.output<typeof CreateShareBody>;

export const ShareParams = z.strictObject({ shareId: z.uuid({ error: 'must be a UUID' }) });

export const ShareSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    ownerOrganizationId: z.uuid(),
    tableName: z.string(),
    sharedToOrganizationId: z.uuid(),
    alias: z.string(),
    readOnly: z.literal(true),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Share');

export const GrantedShareSchema = ShareSchema.extend({
  grantedBy: z
    .object({ userId: z.uuid(), email: z.string(), name: z.string().nullable() })
    .nullable()
    .openapi({ description: 'The member who granted the share (or the owner who kept it when that member left); null when unknown' }),
}).openapi('GrantedShare');

export const ReceivedShareSchema = ShareSchema.extend({
  analyticsTag: z.string().openapi({ description: 'What the table holds: the feed key that fills it (such as twilio:calls), else "custom"' }),
  shadowedBy: z.enum(['own_table', 'earlier_share']).nullable().openapi({
    description:
      "Null when the alias reaches the shared table. Otherwise what holds the alias in this organization: a table of its own by that name, or an earlier active share under the same alias (the alias reaches that one's table)",
  }),
}).openapi('ReceivedShare');
