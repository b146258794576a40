import { Column, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The columns every organization-owned resource has: a UUID, a short id
 * for URLs, its organization, and timestamps. Entities extend it (TypeORM
 * copies inherited columns into each entity's own table).
 */
export abstract class OrganizationResource {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text', unique: true })
  suid!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
