import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'workflows' })
export class Workflow {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text', unique: true })
  suid!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  /** The current definition's name, kept here for uniqueness and lookups. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'current_version', type: 'integer' })
  currentVersion!: number;

  @Column({ name: 'default_environment_id', type: 'uuid', nullable: true })
  defaultEnvironmentId!: string | null;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
