import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The organization's data key, wrapped (encrypted) by a master key. Never stored in plaintext. */
@Entity({ name: 'organization_keys' })
export class OrganizationKey {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ name: 'wrapped_key', type: 'text' })
  wrappedKey!: string;

  /** Fingerprint of the master key that wrapped it; lets a rotation run without downtime. */
  @Column({ name: 'master_key_id', type: 'text' })
  masterKeyId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
