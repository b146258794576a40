import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'environment_variables' })
export class EnvironmentVariable {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ name: 'environment_id', type: 'uuid' })
  environmentId!: string;

  /** Plain text, as interface.md 2.2 says; only the value is a secret. */
  @Column({ type: 'text' })
  key!: string;

  /** AES-256-GCM envelope under the organization's data key, bound to this variable's id. */
  @Column({ name: 'value_encrypted', type: 'text' })
  valueEncrypted!: string;

  /** Masked in what the service records when true (the default); plain configuration such as a base URL is not. */
  @Column({ type: 'boolean' })
  secret!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
