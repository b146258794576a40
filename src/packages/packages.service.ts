import { NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import type { InstallScope, InstallScopeFactory } from './install-scope';
import { type Actor, emptyReport, installPackage, removeItems } from './package-installer';
import type { PackageItem } from './package-item.entity';
import { resolveInstall, type Uploaded } from './package-resolution';
import type { InstalledPackage } from './package.entity';
import type { PackagesRepository } from './packages.repository';
import { MAX_INSTALLED_PACKAGES, type Package, type PackageUpload } from './packages.schemas';

export interface PackageWithItems {
  pkg: InstalledPackage;
  items: PackageItem[];
}

/**
 * Packages (src/packages): installing a versioned bundle of workflows, data
 * sources and dashboards, with its dependencies; listing; uninstalling.
 * Installs and uninstalls are each one transaction (PackagesRepository.transaction):
 * every workflow, source, table, dashboard and package row they write commits
 * together, or nothing does.
 */
export class PackagesService {
  constructor(
    private readonly repository: PackagesRepository,
    private readonly scopeOf: InstallScopeFactory,
  ) {}

  async list(organizationId: string, page: Page): Promise<{ total: number; data: PackageWithItems[] }> {
    const { total, data } = await this.repository.list(organizationId, page);
    const items = await this.repository.itemsOf(
      organizationId,
      data.map((p) => p.id),
    );
    return { total, data: data.map((pkg) => ({ pkg, items: items.filter((i) => i.packageId === pkg.id) })) };
  }

  async get(organizationId: string, id: string): Promise<PackageWithItems> {
    const pkg = await this.repository.find(organizationId, id);
    if (!pkg) throw new NotFoundError('Package');
    return { pkg, items: await this.repository.itemsOf(organizationId, [id]) };
  }

  /**
   * Installs the uploaded package after the dependencies it needs
   * (package-resolution.ts decides which and in what order), each created or
   * updated in place by name (package-installer.ts). 400 for dependency
   * problems, `too_many_packages` past MAX_INSTALLED_PACKAGES, and whatever a
   * workflow, source or dashboard of a package breaks, named at its field.
   */
  install(actor: Actor, upload: PackageUpload) {
    return this.inTransaction(actor.organizationId, async (s) => {
      const installed = await s.packages.all(actor.organizationId, MAX_INSTALLED_PACKAGES + 1);
      const node = (content: Package, at: string): Uploaded<Package> => ({ at, content, ...content.manifest });
      const plan = resolveInstall(
        node(upload.package, 'package'),
        upload.dependencies.map((p, i) => node(p, `dependencies.${i}`)),
        new Map(installed.map((p) => [p.name, p])),
      );
      const added = plan.filter((p) => !p.previous).length;
      if (installed.length + added > MAX_INSTALLED_PACKAGES) {
        throw new ValidationError(
          `An organization has at most ${MAX_INSTALLED_PACKAGES} packages installed; this upload would make ${installed.length + added}`,
          undefined,
          'too_many_packages',
        );
      }
      const createdTables: string[] = [];
      const done: Array<{ pkg: InstalledPackage; previousVersion: string | null }> = [];
      for (const step of plan) done.push({ pkg: await installPackage(s, actor, step, createdTables), previousVersion: step.previous?.version ?? null });
      const items = await s.packages.itemsOf(
        actor.organizationId,
        done.map((d) => d.pkg.id),
      );
      const withItems = (d: (typeof done)[number]) => ({ ...d, items: items.filter((i) => i.packageId === d.pkg.id) });
      // Dependencies first: the uploaded package is the last one installed.
      return { package: withItems(done[done.length - 1]), dependencies: done.slice(0, -1).map(withItems), createdTables };
    });
  }

  /**
   * Uninstalls the package (refused with 400 `package_in_use`, naming them,
   * while other installed packages depend on it), then each package that was
   * installed only as a dependency and that nothing installed needs any more.
   * What they installed goes as package-installer.ts's removeItems says.
   */
  uninstall(actor: Actor, id: string) {
    const { organizationId } = actor;
    return this.inTransaction(organizationId, async (s) => {
      const pkg = await s.packages.find(organizationId, id);
      if (!pkg) throw new NotFoundError('Package');
      const dependents = await s.packages.dependentsOf(organizationId, pkg.name);
      if (dependents.length > 0) {
        throw new ValidationError(
          `${pkg.name} is needed by ${dependents.map((d) => `${d.name} ${d.version}`).join(', ')}: uninstall ${dependents.length === 1 ? 'it' : 'them'} first`,
          dependents.map((d) => ({ path: 'id', message: `${d.name} ${d.version} depends on ${pkg.name} ${d.dependencies[pkg.name]}` })),
          'package_in_use',
        );
      }
      const report = emptyReport();
      const uninstalled: Array<{ id: string; name: string; version: string }> = [];
      const queue = [pkg];
      while (queue.length > 0) {
        const next = queue.shift()!;
        await removeItems(s, organizationId, await s.packages.itemsOf(organizationId, [next.id]), report);
        await s.packages.delete(organizationId, next.id);
        uninstalled.push({ id: next.id, name: next.name, version: next.version });
        for (const name of Object.keys(next.dependencies)) {
          const dep = await s.packages.findByName(organizationId, name);
          if (!dep || dep.installedAs !== 'dependency' || queue.some((q) => q.id === dep.id)) continue;
          if ((await s.packages.dependentsOf(organizationId, dep.name)).length === 0) queue.push(dep);
        }
      }
      return { uninstalled, ...report };
    });
  }

  /**
   * Runs `work` in one transaction (PackagesRepository.transaction, which may
   * run it again from the start), through a scope built over it; once it has
   * committed, the work its deletes left for after the commit (deleting
   * Temporal Schedules) runs, that of the attempt that committed only.
   */
  private async inTransaction<T>(organizationId: string, work: (s: InstallScope) => Promise<T>): Promise<T> {
    let scope: InstallScope | undefined;
    const result = await this.repository.transaction(organizationId, (manager) => work((scope = this.scopeOf(manager))));
    await scope!.afterCommit.run();
    return result;
  }
}
