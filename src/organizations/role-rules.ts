import type { Role } from '../auth/roles';
import { ForbiddenError } from '../errors/errors';

/** Only an owner can grant, change or remove the owner role (invitations included). */
export function assertMayGrant(actorRole: Role, role: Role): void {
  if (role === 'owner' && actorRole !== 'owner') {
    throw new ForbiddenError('Only an owner can grant, change or remove the owner role', 'owner_required');
  }
}
