import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

@Entity({ name: 'environments' })
export class Environment extends OrganizationResource {
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;
}
