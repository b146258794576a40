import { itemTarget, type PackageItem, type PackageItemKind } from './package-item.entity';
import type { InstalledPackage } from './package.entity';

/** An installed package as the API shows it, with what it installed (each by id and its name in the package). */
export function presentPackage(p: InstalledPackage, items: readonly PackageItem[]) {
  const of = (kind: PackageItemKind) => items.filter((i) => i.packageId === p.id && i.kind === kind).map((i) => ({ id: itemTarget(i), name: i.name }));
  return {
    id: p.id,
    suid: p.suid,
    organizationId: p.organizationId,
    name: p.name,
    version: p.version,
    description: p.description,
    dependencies: p.dependencies,
    installedAs: p.installedAs,
    installedBy: p.installedBy,
    workflows: of('workflow'),
    dataSources: of('data_source'),
    dashboards: of('dashboard'),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
