import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

/**
 * A read-only share of one data store table with another organization
 * (interface.md 2.8). `organizationId` is the granting organization, which
 * owns the table. Revoking keeps the row with `revokedAt` set.
 */
@Entity({ name: 'data_store_shares' })
export class DataStoreShare extends OrganizationResource {
  @Column({ name: 'owner_organization_id', type: 'uuid' })
  ownerOrganizationId!: string;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ name: 'table_name', type: 'text' })
  tableName!: string;

  @Column({ name: 'shared_to_organization_id', type: 'uuid' })
  sharedToOrganizationId!: string;

  /** The table's name in the recipient organization. */
  @Column({ type: 'text' })
  alias!: string;

  @Column({ name: 'read_only', type: 'boolean' })
  readOnly!: boolean;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
