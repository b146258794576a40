import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

@Entity({ name: 'workflows' })
export class Workflow extends OrganizationResource {
  /** The current definition's name, kept here for uniqueness and lookups. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'current_version', type: 'integer' })
  currentVersion!: number;

  @Column({ name: 'default_environment_id', type: 'uuid', nullable: true })
  defaultEnvironmentId!: string | null;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;
}
