import { type Connection } from './connection.entity';

/** What a connection looks like through the API: config only as the encrypted envelope. */
export function presentConnection(c: Connection) {
  return {
    id: c.id,
    suid: c.suid,
    organizationId: c.organizationId,
    userId: c.userId,
    name: c.name,
    type: c.type,
    ...(c.variant ? { variant: c.variant } : {}),
    config: c.configEncrypted,
    metadata: c.metadata,
    settings: c.settings,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}
