import { NotFoundError, ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import type { WorkflowsService } from '../workflows/workflows.service';
import { generateTriggerSecret } from './trigger-secret';
import { WebhookTrigger } from './webhook-trigger.entity';
import type { CreateTriggerInput, UpdateTriggerInput } from './webhook-triggers.schemas';
import { type WebhookTriggersRepository } from './webhook-triggers.repository';

/**
 * Webhook triggers (interface.md 2.1): a URL slug unique per organization, a
 * method, and authentication on or off. Turning it on generates a secret that
 * is returned once; only its SHA-256 is kept.
 */
export class WebhookTriggersService {
  constructor(
    private readonly repo: WebhookTriggersRepository,
    private readonly workflows: WorkflowsService,
  ) {}

  list(organizationId: string, filter: { workflowId?: string }, page: { limit: number; offset: number }) {
    return this.repo.list(organizationId, filter, page);
  }

  async get(organizationId: string, id: string): Promise<WebhookTrigger> {
    const trigger = await this.repo.findById(organizationId, id);
    if (!trigger) throw new NotFoundError('Webhook trigger');
    return trigger;
  }

  async create(organizationId: string, workflowId: string, input: CreateTriggerInput): Promise<{ trigger: WebhookTrigger; secret?: string }> {
    await this.workflows.assertExists(organizationId, workflowId);
    const generated = input.authentication ? generateTriggerSecret() : undefined;
    const id = newId();
    await this.repo.insert(
      Object.assign(new WebhookTrigger(), {
        id,
        suid: newSuid(),
        organizationId,
        workflowId,
        name: input.name,
        method: input.method,
        authentication: input.authentication,
        secretHash: generated?.hash ?? null,
        secretSetAt: generated ? new Date() : null,
      }),
    );
    return { trigger: await this.get(organizationId, id), secret: generated?.secret };
  }

  /** Turning authentication on generates a secret (returned once); turning it off forgets the old one. */
  async update(organizationId: string, id: string, input: UpdateTriggerInput): Promise<{ trigger: WebhookTrigger; secret?: string }> {
    const current = await this.get(organizationId, id);
    const turningOn = input.authentication === true && !current.authentication;
    const generated = turningOn ? generateTriggerSecret() : undefined;
    const changes: Partial<WebhookTrigger> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.method !== undefined ? { method: input.method } : {}),
      ...(input.authentication !== undefined ? { authentication: input.authentication } : {}),
      ...(generated ? { secretHash: generated.hash, secretSetAt: new Date() } : {}),
      ...(input.authentication === false ? { secretHash: null, secretSetAt: null } : {}),
    };
    await this.repo.update(organizationId, id, changes);
    return { trigger: await this.get(organizationId, id), secret: generated?.secret };
  }

  /** A new secret; the old one stops working at once. */
  async rotateSecret(organizationId: string, id: string): Promise<{ trigger: WebhookTrigger; secret: string }> {
    const current = await this.get(organizationId, id);
    if (!current.authentication) {
      throw new ValidationError(
        'Authentication is off for this trigger; turn it on to get a secret',
        [{ path: 'authentication', message: 'is off' }],
        'authentication_off',
      );
    }
    const generated = generateTriggerSecret();
    await this.repo.update(organizationId, id, { secretHash: generated.hash, secretSetAt: new Date() });
    return { trigger: await this.get(organizationId, id), secret: generated.secret };
  }

  async delete(organizationId: string, id: string): Promise<WebhookTrigger> {
    const trigger = await this.get(organizationId, id);
    if (!(await this.repo.delete(organizationId, id))) throw new NotFoundError('Webhook trigger');
    return trigger;
  }
}
