import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

@Entity({ name: 'connections' })
export class Connection extends OrganizationResource {
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'text', nullable: true })
  variant!: string | null;

  /** AES-256-GCM envelope under the organization's data key, bound to this connection's id. */
  @Column({ name: 'config_encrypted', type: 'text' })
  configEncrypted!: string;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's insert/update take QueryDeepPartialEntity, which turns unknown values into {}: a jsonb object typed Record<string, unknown> cannot be written
  settings!: Record<string, any>;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as for settings above (TypeORM's QueryDeepPartialEntity)
  metadata!: Record<string, any>;
}
