import { type DataSource, type EntityManager } from 'typeorm';
import { OrganizationKey } from './organization-key.entity';

/** A data key as stored: wrapped by the master key named by `masterKeyId`. */
export type WrappedKey = Pick<OrganizationKey, 'organizationId' | 'wrappedKey' | 'masterKeyId'>;

export class OrganizationKeysRepository {
  constructor(private readonly db: DataSource) {}

  /** Stores a new organization's wrapped key inside the caller's transaction. */
  async insert(key: WrappedKey, manager: EntityManager): Promise<void> {
    await manager.insert(OrganizationKey, key);
  }

  findByOrganization(organizationId: string, manager: EntityManager = this.db.manager): Promise<OrganizationKey | null> {
    return manager.findOneBy(OrganizationKey, { organizationId });
  }

  findAll(manager: EntityManager = this.db.manager): Promise<OrganizationKey[]> {
    return manager.find(OrganizationKey);
  }

  /**
   * Replaces a key's wrapping only while it still has the wrapping `current`
   * holds, so a concurrent re-wrap changes nothing twice. Returns the rows changed (0 or 1).
   */
  async rewrap(current: WrappedKey, next: Pick<WrappedKey, 'wrappedKey' | 'masterKeyId'>, manager: EntityManager = this.db.manager): Promise<number> {
    const { organizationId, masterKeyId, wrappedKey } = current;
    const result = await manager.update(OrganizationKey, { organizationId, masterKeyId, wrappedKey }, next);
    return result.affected ?? 0;
  }
}
