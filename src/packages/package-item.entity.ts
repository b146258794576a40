import { Column, Entity, PrimaryColumn } from 'typeorm';

export type PackageItemKind = 'workflow' | 'data_source' | 'dashboard';

/**
 * One resource a package installed, under its name in the package: a
 * reinstall finds it by that name and updates it in place. Exactly one of
 * the three ids is set, by `kind`; deleting the resource deletes the item.
 */
@Entity({ name: 'package_items' })
export class PackageItem {
  @PrimaryColumn({ name: 'package_id', type: 'uuid' })
  packageId!: string;

  @PrimaryColumn({ type: 'text' })
  kind!: PackageItemKind;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ name: 'workflow_id', type: 'uuid', nullable: true })
  workflowId!: string | null;

  @Column({ name: 'data_source_id', type: 'uuid', nullable: true })
  dataSourceId!: string | null;

  @Column({ name: 'dashboard_id', type: 'uuid', nullable: true })
  dashboardId!: string | null;

  /** Dashboards: widget key → widget id, so a reinstall updates each widget in place. */
  @Column({ name: 'widget_ids', type: 'jsonb' })
  widgetIds!: Record<string, string>;
}

/** The id of the resource the item stands for. */
export const itemTarget = (item: PackageItem): string => (item.workflowId ?? item.dataSourceId ?? item.dashboardId)!;
