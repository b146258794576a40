import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

@Entity({ name: 'webhook_triggers' })
export class WebhookTrigger extends OrganizationResource {
  @Column({ name: 'workflow_id', type: 'uuid' })
  workflowId!: string;

  /** The URL slug: `/w/@<organization suid>/<name>`. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  method!: string;

  @Column({ type: 'boolean' })
  authentication!: boolean;

  /** SHA-256 of the secret; the secret itself is shown once and never stored. */
  @Column({ name: 'secret_hash', type: 'text', nullable: true })
  secretHash!: string | null;

  @Column({ name: 'secret_set_at', type: 'timestamptz', nullable: true })
  secretSetAt!: Date | null;
}
