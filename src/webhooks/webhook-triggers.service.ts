import { NotFoundError, ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import type { WorkflowsService } from '../workflows/workflows.service';
import { DeduplicationSchema } from './delivery-ids';
import { generateSigningSecret, type SigningSecrets } from './signing-secrets';
import type { VerificationConfig } from './signatures/scheme-config';
import { generateTriggerSecret } from './trigger-secret';
import { WebhookTrigger } from './webhook-trigger.entity';
import type { GeneratedSecrets } from './webhook-triggers.presenter';
import type { CreateTriggerInput, RotateSigningSecretInput, UpdateTriggerInput } from './webhook-triggers.schemas';
import { type WebhookTriggersRepository } from './webhook-triggers.repository';

type Saved = { trigger: WebhookTrigger; generated: GeneratedSecrets };

/**
 * Webhook triggers (interface.md 2.1): a URL slug unique per organization, a
 * method, and authentication on or off. Turning it on generates a secret that
 * is returned once; only its SHA-256 is kept. A trigger may also verify
 * vendor signatures: its signing secret is the vendor's, kept encrypted (a
 * signature is checked with the secret itself, so a hash would not do).
 */
export class WebhookTriggersService {
  constructor(
    private readonly repo: WebhookTriggersRepository,
    private readonly workflows: WorkflowsService,
    private readonly signingSecrets: SigningSecrets,
  ) {}

  list(organizationId: string, filter: { workflowId?: string }, page: { limit: number; offset: number }) {
    return this.repo.list(organizationId, filter, page);
  }

  async get(organizationId: string, id: string): Promise<WebhookTrigger> {
    const trigger = await this.repo.findById(organizationId, id);
    if (!trigger) throw new NotFoundError('Webhook trigger');
    return trigger;
  }

  async create(organizationId: string, workflowId: string, input: CreateTriggerInput): Promise<Saved> {
    await this.workflows.assertExists(organizationId, workflowId);
    const generated = input.authentication ? generateTriggerSecret() : undefined;
    const id = newId();
    const signing = await this.signing(organizationId, id, input.verification ?? null, input.signingSecret, false);
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
        deduplication: DeduplicationSchema.parse(input.deduplication ?? {}),
        traceContext: input.traceContext,
        ...signing.changes,
      }),
    );
    return { trigger: await this.get(organizationId, id), generated: { secret: generated?.secret, signingSecret: signing.generated } };
  }

  /** Turning authentication on generates a secret (returned once); turning it off forgets the old one. */
  async update(organizationId: string, id: string, input: UpdateTriggerInput): Promise<Saved> {
    const current = await this.get(organizationId, id);
    const turningOn = input.authentication === true && !current.authentication;
    const generated = turningOn ? generateTriggerSecret() : undefined;
    // Another scheme is another sender: the secret it is verified with must be given (or, for hmac, generated) anew.
    const sameSender = !input.verification || input.verification.scheme === current.verification?.scheme;
    const signing =
      input.verification !== undefined || input.signingSecret !== undefined
        ? await this.signing(
            organizationId,
            id,
            input.verification === undefined ? current.verification : input.verification,
            input.signingSecret,
            !!current.signingSecrets && sameSender,
          )
        : { changes: {}, generated: undefined };
    const changes: Partial<WebhookTrigger> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.method !== undefined ? { method: input.method } : {}),
      ...(input.authentication !== undefined ? { authentication: input.authentication } : {}),
      ...(generated ? { secretHash: generated.hash, secretSetAt: new Date() } : {}),
      ...(input.authentication === false ? { secretHash: null, secretSetAt: null } : {}),
      ...(input.deduplication !== undefined ? { deduplication: DeduplicationSchema.parse(input.deduplication) } : {}),
      ...(input.traceContext !== undefined ? { traceContext: input.traceContext } : {}),
      ...signing.changes,
    };
    await this.repo.update(organizationId, id, changes, 'signingSecrets' in signing.changes ? current.signingSecrets : undefined);
    return { trigger: await this.get(organizationId, id), generated: { secret: generated?.secret, signingSecret: signing.generated } };
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

  /**
   * A new signing secret, with the one it replaces verifying for
   * `overlapSeconds` more: deliveries signed before the sender switched, and
   * their retries, still get in. The row is updated only if no other
   * rotation changed it meanwhile (409), so no secret is dropped unseen.
   */
  async rotateSigningSecret(organizationId: string, id: string, input: RotateSigningSecretInput): Promise<Saved> {
    const current = await this.get(organizationId, id);
    if (!current.verification) {
      throw new ValidationError(
        'This trigger verifies no signatures; give it a verification scheme first',
        [{ path: 'verification', message: 'is not set' }],
        'verification_off',
      );
    }
    const next = input.signingSecret ?? this.generatedFor(current.verification);
    const now = new Date();
    const { sealed, overlapUntil } = await this.signingSecrets.rotate(organizationId, id, current.signingSecrets, next, input.overlapSeconds, now);
    await this.repo.replaceSigningSecrets(organizationId, id, current.signingSecrets, {
      signingSecrets: sealed,
      signingSecretSetAt: now,
      signingOverlapUntil: overlapUntil,
    });
    return { trigger: await this.get(organizationId, id), generated: { signingSecret: input.signingSecret ? undefined : next } };
  }

  async delete(organizationId: string, id: string): Promise<WebhookTrigger> {
    const trigger = await this.get(organizationId, id);
    if (!(await this.repo.delete(organizationId, id))) throw new NotFoundError('Webhook trigger');
    return trigger;
  }

  /**
   * The columns a verification setting writes. A scheme without a secret
   * keeps the one it has, else takes the one given; only hmac, a layout we
   * hand out ourselves, may have one generated. Null clears both.
   */
  private async signing(
    organizationId: string,
    id: string,
    verification: VerificationConfig | null,
    secret: string | undefined,
    hasSecret: boolean,
  ): Promise<{ changes: Partial<WebhookTrigger>; generated: string | undefined }> {
    if (!verification) {
      if (secret !== undefined) {
        throw new ValidationError('signingSecret needs a verification scheme', [{ path: 'signingSecret', message: 'needs verification' }]);
      }
      return { changes: { verification: null, signingSecrets: null, signingSecretSetAt: null, signingOverlapUntil: null }, generated: undefined };
    }
    if (secret === undefined && hasSecret) return { changes: { verification }, generated: undefined };
    const chosen = secret ?? this.generatedFor(verification);
    return {
      changes: {
        verification,
        signingSecrets: await this.signingSecrets.seal(organizationId, id, chosen),
        signingSecretSetAt: new Date(),
        signingOverlapUntil: null,
      },
      generated: secret === undefined ? chosen : undefined,
    };
  }

  private generatedFor(verification: VerificationConfig): string {
    if (verification.scheme !== 'hmac') {
      throw new ValidationError(
        `Give the signing secret ${verification.scheme} shows for this endpoint (signingSecret); only an hmac secret can be generated here`,
        [{ path: 'signingSecret', message: `is required for ${verification.scheme}` }],
      );
    }
    return generateSigningSecret();
  }
}
