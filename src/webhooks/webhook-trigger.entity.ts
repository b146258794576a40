import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';
import type { Deduplication } from './delivery-ids';
import type { VerificationConfig } from './signatures/scheme-config';

export const TRACE_CONTEXT_MODES = ['honour', 'ignore'] as const;
export type TraceContextMode = (typeof TRACE_CONTEXT_MODES)[number];

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

  /** The signature scheme deliveries must carry (its settings, never its secret); null: none. */
  @Column({ type: 'jsonb', nullable: true })
  verification!: VerificationConfig | null;

  /** The signing secrets, sealed by SigningSecrets: the current one and those still in their rotation overlap. */
  @Column({ name: 'signing_secrets', type: 'text', nullable: true })
  signingSecrets!: string | null;

  @Column({ name: 'signing_secret_set_at', type: 'timestamptz', nullable: true })
  signingSecretSetAt!: Date | null;

  /** When the last rotated-out secret stops verifying; null when only the current one does. */
  @Column({ name: 'signing_overlap_until', type: 'timestamptz', nullable: true })
  signingOverlapUntil!: Date | null;

  /** As given (defaults filled); the delivery id source in effect also follows the scheme (effectiveDeliveryIdSource). */
  @Column({ type: 'jsonb' })
  deduplication!: Partial<Deduplication>;

  /** Whether a call's spans continue the caller's W3C `traceparent` (`honour`) or start a trace of their own (`ignore`). */
  @Column({ name: 'trace_context', type: 'text' })
  traceContext!: TraceContextMode;
}
