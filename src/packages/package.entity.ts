import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

/** How a package came to be installed: asked for by name, or only because another package needs it. */
export type InstalledAs = 'direct' | 'dependency';

/**
 * A package installed in an organization, at one version: known by its name
 * (unique in the organization). What it installed is its items
 * (package-item.entity.ts).
 */
@Entity({ name: 'packages' })
export class InstalledPackage extends OrganizationResource {
  @Column({ type: 'text' })
  name!: string;

  /** A semantic version, as the manifest gave it. */
  @Column({ type: 'text' })
  version!: string;

  @Column({ type: 'text' })
  description!: string;

  /** Package name → semver range, as the manifest gave them. */
  @Column({ type: 'jsonb' })
  dependencies!: Record<string, string>;

  /**
   * `dependency` only while no one asked for it by name: its dashboards are
   * hidden from GET /dashboards, and it goes when the last package needing it
   * does. Installing it directly makes it `direct` for good.
   */
  @Column({ name: 'installed_as', type: 'text' })
  installedAs!: InstalledAs;

  @Column({ name: 'installed_by', type: 'uuid', nullable: true })
  installedBy!: string | null;
}
