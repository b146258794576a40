import { IsNull, type DataSource } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import { ConflictError } from '../errors/errors';
import type { Deduplication } from './delivery-ids';
import type { VerificationConfig } from './signatures/scheme-config';
import type { Page } from '../http/pagination';
import { WebhookTrigger, type TraceContextMode } from './webhook-trigger.entity';

const uniqueName = uniqueNameIndex('webhook_triggers_org_name_key', 'webhook trigger');
const concurrentRotation = () => new ConflictError('The signing secret changed meanwhile; read the trigger and try again', 'concurrent_rotation');

/** What a webhook call needs, found by the public URL's organization suid and trigger name. */
export interface TriggerTarget {
  organizationId: string;
  /** The organization's plan: how long its executions are kept, which bounds how long a delivery id can be recognized. */
  plan: string;
  trigger: {
    id: string;
    name: string;
    method: string;
    authentication: boolean;
    secretHash: string | null;
    verification: VerificationConfig | null;
    signingSecrets: string | null;
    deduplication: Partial<Deduplication>;
    traceContext: TraceContextMode;
  };
  workflow: { id: string; name: string; version: number; defaultEnvironmentId: string | null; definition: { steps: unknown[] } };
}

/** Every method takes the organization (by id, or by its public suid for webhook calls): there is no unscoped read. */
export class WebhookTriggersRepository {
  constructor(private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(WebhookTrigger);
  }

  async list(organizationId: string, filter: { workflowId?: string }, page: Page): Promise<{ total: number; data: WebhookTrigger[] }> {
    const [data, total] = await this.repo.findAndCount({
      where: { organizationId, ...(filter.workflowId ? { workflowId: filter.workflowId } : {}) },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  findById(organizationId: string, id: string): Promise<WebhookTrigger | null> {
    return this.repo.findOneBy({ organizationId, id });
  }

  findByName(organizationId: string, name: string): Promise<WebhookTrigger | null> {
    return this.repo.findOneBy({ organizationId, name });
  }

  /** The trigger and its workflow's current definition in one query: the webhook hot path. */
  async findTarget(organizationSuid: string, name: string): Promise<TriggerTarget | null> {
    const [r] = await this.db.query(
      `SELECT o.id AS organization_id, o.plan, t.id, t.name, t.method, t.authentication, t.secret_hash, t.verification, t.signing_secrets, t.deduplication, t.trace_context,
              w.id AS workflow_id, w.name AS workflow_name, w.current_version, w.default_environment_id, v.definition
       FROM organizations o
       JOIN webhook_triggers t ON t.organization_id = o.id AND t.name = $2
       JOIN workflows w ON w.id = t.workflow_id AND w.organization_id = o.id
       JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.current_version
       WHERE o.suid = $1`,
      [organizationSuid, name],
    );
    if (!r) return null;
    return {
      organizationId: r.organization_id,
      plan: r.plan,
      trigger: {
        id: r.id,
        name: r.name,
        method: r.method,
        authentication: r.authentication,
        secretHash: r.secret_hash,
        verification: r.verification,
        signingSecrets: r.signing_secrets,
        deduplication: r.deduplication,
        traceContext: r.trace_context,
      },
      workflow: {
        id: r.workflow_id,
        name: r.workflow_name,
        version: r.current_version,
        defaultEnvironmentId: r.default_environment_id,
        definition: r.definition,
      },
    };
  }

  async insert(trigger: WebhookTrigger): Promise<void> {
    await uniqueName(trigger.name, () => this.repo.insert(trigger));
  }

  /**
   * `signingSecretsWere`: the change replaces the signing secrets, and only
   * if they are still these (a concurrent rotation is a 409, not a lost secret).
   */
  async update(organizationId: string, id: string, changes: Partial<WebhookTrigger>, signingSecretsWere?: string | null): Promise<void> {
    const guard = signingSecretsWere === undefined ? {} : { signingSecrets: signingSecretsWere === null ? IsNull() : signingSecretsWere };
    const result = await uniqueName(changes.name, () => this.repo.update({ organizationId, id, ...guard }, changes));
    if (signingSecretsWere !== undefined && result.affected === 0) throw concurrentRotation();
  }

  /** Writes rotated signing secrets only over the ones they were rotated from: a concurrent rotation is a 409, not a lost secret. */
  async replaceSigningSecrets(
    organizationId: string,
    id: string,
    from: string | null,
    changes: Pick<WebhookTrigger, 'signingSecrets' | 'signingSecretSetAt' | 'signingOverlapUntil'>,
  ): Promise<void> {
    const [, affected] = await this.db.query(
      `UPDATE webhook_triggers SET signing_secrets = $4, signing_secret_set_at = $5, signing_overlap_until = $6, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND signing_secrets IS NOT DISTINCT FROM $3`,
      [organizationId, id, from, changes.signingSecrets, changes.signingSecretSetAt, changes.signingOverlapUntil],
    );
    if (affected === 0) throw concurrentRotation();
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    return ((await this.repo.delete({ organizationId, id })).affected ?? 0) > 0;
  }
}
