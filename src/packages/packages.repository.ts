import { type EntityManager, In } from 'typeorm';
import { isDeadlock } from '../db/database-errors';
import { allowLongStatements } from '../db/statement-timeouts';
import { ConflictError } from '../errors/errors';
import { uniqueNameIndex } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { PackageItem, type PackageItemKind } from './package-item.entity';
import { InstalledPackage } from './package.entity';

const uniqueName = uniqueNameIndex('packages_org_name_key', 'package');

/** How many times an install or uninstall runs in all when PostgreSQL keeps aborting it to break deadlocks. */
export const UNIT_ATTEMPTS = 3;

/**
 * Installed packages and their items. Every method takes the organization.
 * Installs and uninstalls run through `transaction`, one at a time per
 * organization.
 */
export class PackagesRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Runs `work` in one transaction, given its EntityManager: everything
   * written through it (install-scope.ts builds the install's repositories
   * over it) commits together or not at all. One install or uninstall of an
   * organization at a time (a transaction-scoped advisory lock), so each
   * resolves dependencies against a settled set of installed packages; a
   * second one is refused at once (409 install_in_progress) rather than
   * waiting on a pooled connection while the first builds serving relations.
   * Statements then get the long timeout: an install builds the serving
   * relations of its data sources.
   *
   * When PostgreSQL breaks a deadlock with another transaction by aborting
   * this one, the whole transaction has rolled back (no statement of it can
   * be retried on its own), so `work` runs again from the start in a new one,
   * up to UNIT_ATTEMPTS times; then 409 write_conflict, nothing written.
   * `work` must therefore keep nothing outside its transaction between
   * attempts (install-scope.ts: work outside the database waits for the commit).
   */
  async transaction<T>(organizationId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(organizationId, work);
      } catch (err) {
        if (!isDeadlock(err)) throw err;
        if (attempt >= UNIT_ATTEMPTS) {
          throw new ConflictError(
            `Other writes to the same rows deadlocked with this package install or uninstall ${UNIT_ATTEMPTS} times; nothing was changed, try again`,
            'write_conflict',
          );
        }
      }
    }
  }

  private attempt<T>(organizationId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.manager.transaction(async (m) => {
      const [{ locked }] = await m.query(`SELECT pg_try_advisory_xact_lock(hashtextextended('packages:' || $1::text, 0)) AS locked`, [organizationId]);
      if (!locked)
        throw new ConflictError('Another package install or uninstall of this organization is running; try again when it has finished', 'install_in_progress');
      await allowLongStatements(m);
      return work(m);
    });
  }

  /** A page of the organization's packages by name, with the total. */
  async list(organizationId: string, page: Page): Promise<{ total: number; data: InstalledPackage[] }> {
    const [data, total] = await this.manager.getRepository(InstalledPackage).findAndCount({
      where: { organizationId },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  /** Every installed package of the organization (at most MAX_INSTALLED_PACKAGES exist): what dependency resolution reads. */
  all(organizationId: string, limit: number): Promise<InstalledPackage[]> {
    return this.manager.getRepository(InstalledPackage).find({ where: { organizationId }, order: { name: 'ASC' }, take: limit });
  }

  find(organizationId: string, id: string): Promise<InstalledPackage | null> {
    return this.manager.getRepository(InstalledPackage).findOneBy({ organizationId, id });
  }

  findByName(organizationId: string, name: string): Promise<InstalledPackage | null> {
    return this.manager.getRepository(InstalledPackage).findOneBy({ organizationId, name });
  }

  /** Inserts or updates the package row (400 duplicate_name should the name race). */
  async save(pkg: InstalledPackage): Promise<InstalledPackage> {
    await uniqueName(pkg.name, () => this.manager.getRepository(InstalledPackage).save(pkg));
    return (await this.find(pkg.organizationId, pkg.id))!;
  }

  async delete(organizationId: string, id: string): Promise<void> {
    await this.manager.getRepository(InstalledPackage).delete({ organizationId, id });
  }

  /** The installed packages whose manifest depends on `name`. */
  dependentsOf(organizationId: string, name: string): Promise<InstalledPackage[]> {
    return this.manager
      .getRepository(InstalledPackage)
      .createQueryBuilder('p')
      .where('p.organizationId = :organizationId', { organizationId })
      .andWhere('(p.dependencies -> CAST(:name AS text)) IS NOT NULL', { name })
      .orderBy('p.name')
      .getMany();
  }

  /** The items of these packages, by kind then name (a package has at most a few hundred). */
  itemsOf(organizationId: string, packageIds: string[]): Promise<PackageItem[]> {
    if (packageIds.length === 0) return Promise.resolve([]);
    return this.manager.getRepository(PackageItem).find({ where: { organizationId, packageId: In(packageIds) }, order: { kind: 'ASC', name: 'ASC' } });
  }

  async putItem(item: PackageItem): Promise<void> {
    await this.manager.getRepository(PackageItem).upsert(item, ['packageId', 'kind', 'name']);
  }

  /** Forgets items: the resources stay, no longer part of a package. */
  async dropItems(organizationId: string, packageId: string, kind: PackageItemKind, names: string[]): Promise<void> {
    if (names.length > 0) await this.manager.getRepository(PackageItem).delete({ organizationId, packageId, kind, name: In(names) });
  }

  /** Of these workflows, those with a webhook trigger: something outside may be calling them. */
  async workflowsWithTriggers(organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: Array<{ workflow_id: string }> = await this.manager.query(
      `SELECT DISTINCT workflow_id FROM webhook_triggers WHERE organization_id = $1 AND workflow_id = ANY($2::uuid[])`,
      [organizationId, ids],
    );
    return new Set(rows.map((r) => r.workflow_id));
  }

  /** Of these data sources, those a widget or a filter of a dashboard of the organization uses. */
  async sourcesInUse(organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.manager.query(
      `SELECT data_source_id AS id FROM dashboard_widgets WHERE organization_id = $1 AND data_source_id = ANY($2::uuid[])
       UNION
       SELECT (f ->> 'dataSourceId')::uuid FROM dashboards d, jsonb_array_elements(d.filter_config) f
       WHERE d.organization_id = $1 AND f ->> 'dataSourceId' = ANY($2::text[])`,
      [organizationId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }
}
