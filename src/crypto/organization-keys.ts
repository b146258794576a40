import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { type MasterKeyring } from './master-keyring';
import type { OrganizationKeysRepository } from './organization-keys.repository';

/**
 * Per-organization data keys (envelope encryption). Unwrapped keys are cached
 * in memory only; the database holds them wrapped by the master key.
 */
export class OrganizationKeys {
  private readonly cache = new Map<string, Buffer>();

  constructor(
    private readonly repo: OrganizationKeysRepository,
    private readonly keyring: MasterKeyring,
    private readonly maxCached = 10_000,
  ) {}

  /** Creates the data key of a new organization inside the caller's transaction. */
  async create(organizationId: string, manager: EntityManager): Promise<void> {
    const dataKey = randomBytes(32);
    const { wrappedKey, masterKeyId } = this.keyring.wrap(dataKey, organizationId);
    await this.repo.insert({ organizationId, wrappedKey, masterKeyId }, manager);
  }

  async get(organizationId: string): Promise<Buffer> {
    const cached = this.cache.get(organizationId);
    if (cached) return cached;
    const row = await this.repo.findByOrganization(organizationId);
    if (!row) throw new Error(`Organization ${organizationId} has no data key`);
    const key = this.keyring.unwrap(row.wrappedKey, row.masterKeyId, organizationId);
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(organizationId, key);
    return key;
  }

  /**
   * Re-wraps every organization key not yet under the current master key.
   * Each row is updated on its own, guarded by its old wrapping, so the
   * service keeps reading keys (with the previous master key still in its
   * keyring) while this runs, and a second concurrent run changes nothing twice.
   */
  async rewrapAll(): Promise<{ rewrapped: number; alreadyCurrent: number }> {
    const rows = await this.repo.findAll();
    let rewrapped = 0;
    for (const row of rows) {
      if (row.masterKeyId === this.keyring.currentKeyId) continue;
      const dataKey = this.keyring.unwrap(row.wrappedKey, row.masterKeyId, row.organizationId);
      const next = this.keyring.wrap(dataKey, row.organizationId);
      rewrapped += await this.repo.rewrap(row, next);
    }
    return { rewrapped, alreadyCurrent: rows.length - rewrapped };
  }
}
