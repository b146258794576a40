import type { EnvironmentsService } from '../environments/environments.service';
import { MAX_JSON_DEPTH, replaceUnstorableText, withinDepth } from '../db/storable-json';
import { AppError, NotFoundError, UnauthorizedError, ValidationError } from '../errors/errors';
import type { HttpReply, ReplyResolver } from '../executions/reply-resolver';
import type { RunRequest, RunStarter } from '../executions/run-starter';
import type { StepDefinition } from '../workflows/definition.schemas';
import { hasReturnStep } from '../workflows/return-step';
import { triggerSecretMatches } from './trigger-secret';
import type { WebhookRateLimiter } from './webhook-rate-limiter';
import type { WebhookTriggersRepository } from './webhook-triggers.repository';

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

/** A call that passed every check: what to run, and whether the caller waits for a return step. */
export interface AcceptedCall {
  run: Omit<RunRequest, 'initial'>;
  synchronous: boolean;
}

/**
 * The checks of a webhook call (4.1, 5.1), in the order that reveals least:
 * unknown organization and unknown trigger are the same 404; then method,
 * then the secret (constant time); then the rate limits (only calls that
 * could start a run count); then the environment. Nothing starts unless all
 * pass; then `run` starts the accepted call's run.
 */
export class WebhookHost {
  constructor(
    private readonly triggers: WebhookTriggersRepository,
    private readonly environments: EnvironmentsService,
    private readonly limiter: WebhookRateLimiter,
    private readonly runs: RunStarter,
    private readonly replies: ReplyResolver,
    /** How long a caller waits for its return step's response at most (WEBHOOK_SYNC_TIMEOUT_SECONDS). */
    private readonly syncTimeoutMs: number,
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
    const environmentId =
      call.environmentName === undefined
        ? target.workflow.defaultEnvironmentId
        : await this.environments.idByName(target.organizationId, call.environmentName, 'env');
    const steps = target.workflow.definition.steps as StepDefinition[];
    return {
      synchronous: hasReturnStep(steps),
      run: {
        organizationId: target.organizationId,
        workflow: { id: target.workflow.id, name: target.workflow.name, version: target.workflow.version, steps },
        trigger: { id: target.trigger.id, name: target.trigger.name },
        environmentId,
        mode: 'webhook',
      },
    };
  }

  /**
   * Starts an accepted call's run with the request body as `initial`. Without
   * a return step the caller learns only that it started, as soon as Temporal
   * has the run; with one, it waits (bounded) for the response it is owed.
   */
  async run(accepted: AcceptedCall, initial: Record<string, unknown>): Promise<{ executionId: string; answer: HttpReply }> {
    const request = { ...accepted.run, initial };
    if (!accepted.synchronous) return { executionId: await this.runs.start(request), answer: { kind: 'started' } };
    const { executionId, answer } = await this.runs.startAndAwaitReply(request, this.syncTimeoutMs);
    return { executionId, answer: await this.replies.resolve(accepted.run.organizationId, executionId, answer) };
  }
}

/** The request body as `initial`: a JSON object, or nothing at all. */
export function parseWebhookBody(raw: Buffer | undefined, contentType: string | undefined): Record<string, unknown> {
  if (!raw || raw.length === 0) return {};
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new AppError(415, 'unsupported_media_type', `Webhook bodies are JSON (Content-Type: application/json), not ${contentType.split(';')[0]}`);
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
