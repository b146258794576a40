import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';
import type { FilterConfigItem, FilterDefaults, LayoutItem } from './dashboards.schemas';

/** A dashboard (interface.md 2.4): a grid of widgets, filter controls with their defaults, and a time zone. */
@Entity({ name: 'dashboards' })
export class Dashboard extends OrganizationResource {
  /** Who created it. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** At most one per organization (a partial unique index). */
  @Column({ name: 'is_default', type: 'boolean' })
  isDefault!: boolean;

  /** Placement of the widgets on the grid; a widget left out exists but is not shown (layout-rules.ts). */
  @Column({ type: 'jsonb' })
  layout!: LayoutItem[];

  @Column({ name: 'filter_config', type: 'jsonb' })
  filterConfig!: FilterConfigItem[];

  /** Filter id → the values a viewer starts with. */
  @Column({ name: 'filter_defaults', type: 'jsonb' })
  filterDefaults!: FilterDefaults;

  /** An IANA zone, or null: each viewer's own. */
  @Column({ type: 'text', nullable: true })
  timezone!: string | null;
}
