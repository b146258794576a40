import type { EnvironmentsService } from '../environments/environments.service';
import { MAX_JSON_DEPTH, replaceUnstorableText, withinDepth } from '../db/storable-json';
import { AppError, ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../errors/errors';
import { OPEN_STATUSES } from '../executions/executions.constants';
import type { ExecutionsRepository } from '../executions/executions.repository';
import type { HttpReply, ReplyResolver } from '../executions/reply-resolver';
import { DeliveryRecorded, DuplicateStart } from '../executions/duplicate-starts';
import type { RunRequest } from '../executions/run-request';
import type { RunStarter } from '../executions/run-starter';
import type { StepDefinition } from '../workflows/definition.schemas';
import { hasReturnStep } from '../workflows/return-step';
import {
  DEFAULT_DEDUP_WINDOW_SECONDS,
  DELIVERY_GENERATIONS,
  deliveryExecutionId,
  deliveryIdOf,
  effectiveDeliveryIdSource,
  type DeliveryIdSource,
} from './delivery-ids';
import { isFormContentType, parseFormBody } from './form-body';
import type { SigningSecrets } from './signing-secrets';
import type { VerificationConfig } from './signatures/scheme-config';
import { DEFAULT_TOLERANCE_SECONDS, schemeHeaders } from './signatures/scheme-config';
import { verifyDelivery, type SignedDelivery } from './signatures/verify-delivery';
import { triggerSecretMatches } from './trigger-secret';
import { ANSWERED_RUN_HOLD_MS, type AdmissionSlot, type WebhookAdmission } from './webhook-admission';
import type { WebhookRateLimiter } from './webhook-rate-limiter';
import type { WebhookTriggersRepository } from './webhook-triggers.repository';
import type { TraceContextMode } from './webhook-trigger.entity';

export interface WebhookCall {
  organizationSuid: string;
  triggerName: string;
  method: string;
  authorization: string | undefined;
  environmentName: string | undefined;
}

/** A call with another method than the trigger's; `allow` fills the Allow header. */
export class MethodNotAllowedError extends AppError {
  constructor(
    readonly allow: string,
    method: string,
  ) {
    super(405, 'method_not_allowed', `This webhook takes ${allow}, not ${method}`);
  }
}

/**
 * A call that passed the checks made before its body is read: what to run,
 * whether the caller waits for a return step, the signature its body must
 * carry (with every secret valid now), and where its delivery id is.
 */
export interface AcceptedCall {
  run: Omit<RunRequest, 'initial' | 'environmentId'> & { trigger: { id: string; name: string } };
  /** `?env=` (resolved once the signature holds, so an unsigned call learns no environment names), else the workflow's default. */
  environment: { name?: string; defaultId: string | null };
  synchronous: boolean;
  verification?: { config: VerificationConfig; secrets: string[] };
  deduplication?: { source: DeliveryIdSource; windowMs: number };
  /** Whether the call's spans continue the caller's `traceparent`. */
  traceContext: TraceContextMode;
}

/** A delivery as received: its exact bytes, its headers, and the public URL it was sent to (Twilio signs that URL). */
export type ReceivedDelivery = Omit<SignedDelivery, 'body'> & { body: Buffer | undefined };

/** What a caller is answered: the run's answer (a duplicate delivery's is its first run's), or Slack's URL check echoed. */
export type WebhookAnswer = { executionId: string; answer: HttpReply; duplicate?: boolean } | { challenge: string };

/** 409: a delivery id the trigger saw with another body; nothing starts, and the first caller's answer stays the first caller's. */
export class DeliveryIdReused extends ConflictError {
  constructor(deliveryId: string) {
    super(`Delivery id "${deliveryId}" was used before with another body; a retry sends the same body, and other content needs a new id`, 'delivery_id_reused');
  }
}

/** 401 for a delivery whose signature does not verify; the same answer whatever part was wrong. */
export class SignatureRefused extends AppError {
  constructor(code: 'invalid_signature' | 'timestamp_out_of_tolerance', config: VerificationConfig) {
    super(
      401,
      code,
      code === 'invalid_signature'
        ? `This webhook takes only deliveries signed for it (${config.scheme}: ${schemeHeaders(config).join(', ')}); this one's signature does not verify`
        : `This delivery's timestamp is more than ${'toleranceSeconds' in config ? config.toleranceSeconds : DEFAULT_TOLERANCE_SECONDS} s away from this server's clock; it may be a replay, or the sender's clock is off`,
    );
  }
}

/**
 * The checks of a webhook call (4.1, 5.1), in the order that reveals least:
 * unknown organization and unknown trigger are the same 404; then method,
 * then the secret (constant time); then the rate limits (only calls that
 * could start a run count, and a delivery whose signature is yet to be
 * checked could). Then `run` checks the signature over the exact bytes
 * received, before anything parses them, then the environment, and starts
 * the run: once per delivery id, which Temporal enforces (see startDelivery).
 */
export class WebhookHost {
  constructor(
    private readonly triggers: WebhookTriggersRepository,
    private readonly environments: EnvironmentsService,
    private readonly limiter: WebhookRateLimiter,
    private readonly admission: WebhookAdmission,
    private readonly runs: RunStarter,
    private readonly replies: ReplyResolver,
    private readonly executions: ExecutionsRepository,
    private readonly signingSecrets: SigningSecrets,
    /** How long a caller waits for its return step's response at most (WEBHOOK_SYNC_TIMEOUT_SECONDS). */
    private readonly syncTimeoutMs: number,
    /** Days each plan keeps executions: a delivery id is recognized by its execution, so no window outlasts them. */
    private readonly retentionDaysByPlan: Record<string, number>,
  ) {}

  async accept(call: WebhookCall): Promise<AcceptedCall> {
    const target = await this.triggers.findTarget(call.organizationSuid, call.triggerName);
    if (!target) throw new NotFoundError('Webhook trigger');
    if (call.method !== target.trigger.method) {
      throw new MethodNotAllowedError(target.trigger.method, call.method);
    }
    if (target.trigger.authentication) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(call.authorization ?? '')?.[1];
      if (!presented || !triggerSecretMatches(presented, target.trigger.secretHash)) {
        throw new UnauthorizedError('This webhook needs its secret: Authorization: Bearer <secret>');
      }
    }
    this.limiter.take(target.organizationId, target.trigger.id);
    const steps = target.workflow.definition.steps as StepDefinition[];
    const { verification, signingSecrets, deduplication } = target.trigger;
    const source = effectiveDeliveryIdSource(deduplication, verification?.scheme);
    return {
      ...(verification
        ? {
            verification: {
              config: verification,
              secrets: signingSecrets ? await this.signingSecrets.valid(target.organizationId, target.trigger.id, signingSecrets, new Date()) : [],
            },
          }
        : {}),
      ...(source ? { deduplication: { source, windowMs: this.windowMs(deduplication.windowSeconds, target.plan) } } : {}),
      synchronous: hasReturnStep(steps),
      traceContext: target.trigger.traceContext,
      environment: { name: call.environmentName, defaultId: target.workflow.defaultEnvironmentId },
      run: {
        organizationId: target.organizationId,
        workflow: { id: target.workflow.id, name: target.workflow.name, version: target.workflow.version, steps },
        trigger: { id: target.trigger.id, name: target.trigger.name },
        mode: 'webhook',
      },
    };
  }

  /** The trigger's window, cut to its organization's execution retention (a pruned execution recognizes no retry). */
  private windowMs(windowSeconds: number | undefined, plan: string): number {
    const retentionMs = (this.retentionDaysByPlan[plan] ?? Infinity) * 86_400_000;
    return Math.min((windowSeconds ?? DEFAULT_DEDUP_WINDOW_SECONDS) * 1000, retentionMs);
  }

  /**
   * Checks the delivery's signature, then starts its run with the body as
   * `initial`. Without a return step the caller learns only that it started,
   * as soon as Temporal has the run; with one, it waits (bounded) for the
   * response it is owed. A delivery whose id was seen starts nothing.
   */
  async run(accepted: AcceptedCall, delivery: ReceivedDelivery): Promise<WebhookAnswer> {
    const body = delivery.body ?? Buffer.alloc(0);
    if (accepted.verification) {
      const { config, secrets } = accepted.verification;
      const outcome = verifyDelivery(config, secrets, { ...delivery, body }, Date.now());
      if (!outcome.ok) throw new SignatureRefused(outcome.code, config);
    }
    const { name, defaultId } = accepted.environment;
    const environmentId = name === undefined ? defaultId : await this.environments.idByName(accepted.run.organizationId, name, 'env');
    const initial = parseWebhookBody(body, delivery.contentType);
    // Slack checks an Events API URL with a signed challenge it wants echoed; it is no event to run for.
    if (accepted.verification?.config.scheme === 'slack' && initial.type === 'url_verification' && typeof initial.challenge === 'string') {
      return { challenge: initial.challenge };
    }
    const deliveryId = accepted.deduplication ? deliveryIdOf(accepted.deduplication.source, delivery.header, initial) : undefined;
    const run = { ...accepted.run, environmentId, initial };
    // Last of the checks, so that a refused call never waits for room; before anything is written or started.
    const slot = await this.admission.admit(run.organizationId);
    try {
      if (deliveryId === undefined) return await this.start(accepted, run, slot);
      return await this.startDelivery(accepted, run, deliveryId, accepted.deduplication!.windowMs, slot);
    } finally {
      slot.free();
    }
  }

  private async start(accepted: AcceptedCall, request: RunRequest, slot: AdmissionSlot): Promise<{ executionId: string; answer: HttpReply }> {
    if (!accepted.synchronous) {
      const { executionId, ended } = await this.runs.startWatched(request, ANSWERED_RUN_HOLD_MS);
      slot.keepUntil(ended);
      return { executionId, answer: { kind: 'started' } };
    }
    const { executionId, answer } = await this.runs.startAndAwaitReply(request, this.syncTimeoutMs);
    // A delivery's duplicates are owed the same answer, a sealed one included: it stays (an hour at most, as any uncollected answer).
    return { executionId, answer: await this.replies.resolve(request.organizationId, executionId, answer, { keep: !!request.deliveryId }) };
  }

  /**
   * Exactly one run per delivery id and window. The run's id is derived from
   * the trigger and the delivery id, so every retry of a delivery, and every
   * concurrent duplicate, asks Temporal to start the same workflow id, and
   * Temporal starts it once (REJECT_DUPLICATE for a closed run, FAIL for a
   * running one: DuplicateStart). The executions table only says which
   * generation of the id is current: a delivery id seen again after its
   * window starts a new run under the next generation.
   */
  private async startDelivery(accepted: AcceptedCall, request: RunRequest, deliveryId: string, windowMs: number, slot: AdmissionSlot) {
    const { organizationId, trigger } = accepted.run;
    const run = { ...request, deliveryId };
    try {
      try {
        // The common case, a delivery never seen: claimed and started as any run, in as many statements.
        return await this.start(accepted, { ...run, executionId: deliveryExecutionId(trigger.id, deliveryId, 0), claimNewDelivery: true }, slot);
      } catch (err) {
        if (!(err instanceof DeliveryRecorded)) throw err;
      }
      const generation = await this.deliveryGeneration(organizationId, trigger.id, deliveryId, request.initial, windowMs);
      if (generation.seen) return await this.duplicate(accepted, generation.executionId);
      return await this.start(accepted, { ...run, executionId: generation.executionId }, slot);
    } catch (err) {
      if (!(err instanceof DuplicateStart)) throw err;
      // Refused by Temporal: started by a concurrent delivery of this id, whose body the record holds.
      if (!(await this.executions.hasInput(organizationId, err.executionId, request.initial))) throw new DeliveryIdReused(deliveryId);
      return this.duplicate(accepted, err.executionId);
    }
  }

  /**
   * The execution id of a delivery seen before: the generation whose first
   * delivery is within the window, else the first unused one. A closed run
   * of the current generation is answered without asking Temporal, which
   * forgets closed runs after its retention; one that never started is
   * opened again to start now. The same id with another body is refused:
   * a retry sends what it sent, and a caller reusing an id for something
   * else must not get the first caller's answer.
   */
  private async deliveryGeneration(organizationId: string, triggerId: string, deliveryId: string, initial: Record<string, unknown>, windowMs: number) {
    const runs = await this.executions.deliveryRuns(organizationId, triggerId, deliveryId, initial);
    const since = Date.now() - windowMs;
    const current = runs.find((r) => r.startedAt.getTime() > since);
    if (current) {
      if (!current.sameInput) throw new DeliveryIdReused(deliveryId);
      if (current.notStarted) await this.executions.reopenNotStarted(organizationId, current.id);
      const open = current.notStarted || OPEN_STATUSES.has(current.status);
      return { executionId: current.id, seen: !open };
    }
    const used = new Set(runs.map((r) => r.id));
    for (let generation = 0; generation < DELIVERY_GENERATIONS; generation++) {
      const id = deliveryExecutionId(triggerId, deliveryId, generation);
      if (!used.has(id)) return { executionId: id, seen: false };
    }
    throw new ConflictError(
      `Delivery id "${deliveryId}" has started ${DELIVERY_GENERATIONS} runs of this trigger already; send a new id`,
      'delivery_id_exhausted',
    );
  }

  /** A duplicate's caller: 202 naming the run, or when it waits for a return step, what the run answered so far. */
  private async duplicate(accepted: AcceptedCall, executionId: string) {
    const { organizationId } = accepted.run;
    if (!accepted.synchronous) return { executionId, answer: { kind: 'started' } as const, duplicate: true };
    const answer = await this.replies.resolve(organizationId, executionId, await this.runs.answerSoFar(organizationId, executionId), { keep: true });
    return { executionId, answer, duplicate: true };
  }
}

/**
 * The request body as `initial`: a JSON object, a form (Twilio, Slack's
 * commands and buttons post `application/x-www-form-urlencoded`: each field
 * a string, a repeated one an array), or nothing at all.
 */
export function parseWebhookBody(raw: Buffer | undefined, contentType: string | undefined): Record<string, unknown> {
  if (!raw || raw.length === 0) return {};
  if (isFormContentType(contentType)) return parseFormBody(raw);
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new AppError(
      415,
      'unsupported_media_type',
      `Webhook bodies are JSON (Content-Type: application/json) or forms (application/x-www-form-urlencoded), not ${contentType.split(';')[0]}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError(400, 'invalid_json', 'Request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError(400, 'invalid_body', "The request body must be a JSON object; it becomes the run's `initial`");
  }
  if (!withinDepth(value, MAX_JSON_DEPTH)) {
    throw new ValidationError(`The request body nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`, [
      { path: '(root)', message: `nests deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  // A sender's payload is data the run is owed, and a refused delivery would only be retried as it was: what PostgreSQL cannot store is replaced, not refused.
  return replaceUnstorableText(value as Record<string, unknown>);
}
