import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage, type Client } from '@temporalio/client';
import { ajvIssues } from '../errors/ajv-issues';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/errors';
import { compileOrganizationSchema, refusingCheck, type SchemaCheck } from '../lib/organization-ajv';
import { deliverEventUpdate, STEP_INLINE_LIMIT, type RunEvent } from '../../workflows/run.types';
import type { ExecutionWaitsRepository, WaitRow } from './execution-waits.repository';
import type { ExecutionsRepository } from './executions.repository';
import type { AwaitedReply } from './awaited-answers';
import type { DeliverableReply, ReplyResolver } from './reply-resolver';
import { ResumeLinks } from './resume-links';

/** An event payload travels in workflow history (the update's argument) and becomes a step output: kept below the inline limit. */
export const MAX_EVENT_PAYLOAD_BYTES = STEP_INLINE_LIMIT;

/** What the holder of a bad, used or expired link learns: nothing about the run, not even whether there is one. */
export class ResumeLinkRefused extends AppError {
  constructor(status: 400 | 404, code: string, message: string) {
    super(status, code, message);
  }
}
const unknownLink = () => new ResumeLinkRefused(404, 'not_found', 'Not found');

/** How long a resume link's event may take to reach the run; past it the link is given back. */
const DELIVERY_TIMEOUT_MS = 10_000;

/** A refused payload names at most this many fields: enough to fix it, bounded whatever the payload holds. */
const MAX_PAYLOAD_ISSUES = 20;

/** Compiled payload schemas, by their JSON: a wait's schema is compiled once per process, not per event. */
const VALIDATORS_KEPT = 200;

/**
 * Events for runs parked at a `core.wait` event step, from the API
 * (`POST /executions/{id}/events/{name}`, a member's call) or from a resume
 * link (its holder's). The payload is checked against the step's JSON
 * Schema before the run hears of it; the run accepts it only while it waits
 * for that event (the update's validator), so a late or repeated event
 * changes nothing.
 */
export class RunEventsService {
  private readonly validators = new Map<string, SchemaCheck>();

  constructor(
    private readonly client: Client,
    private readonly executions: Pick<ExecutionsRepository, 'status'>,
    private readonly waits: ExecutionWaitsRepository,
    private readonly replies: ReplyResolver,
    /** How long a resume link's caller waits for what the run tells next. */
    private readonly syncTimeoutMs: number,
  ) {}

  /**
   * Sends a member's event; resolves once the run has taken it (it resumes),
   * before it runs further. Of any number of events sent at once for one
   * wait, by members or through its link, one is taken (claimEvent); the
   * rest are 409 `not_waiting`.
   */
  async send(organizationId: string, executionId: string, name: string, payload: unknown): Promise<{ executionId: string; stepId: string; event: string }> {
    // Its status proves the execution is the organization's without reading its input.
    if (!(await this.executions.status(organizationId, executionId))) throw new NotFoundError('Execution');
    const notWaiting = () => new ConflictError(`The execution is not waiting for event "${name}"`, 'not_waiting');
    const wait = (await this.waits.open(organizationId, executionId)).find((w) => w.eventName === name);
    if (!wait) throw notWaiting();
    if (payloadTooLarge(payload)) throw tooLarge();
    const problems = this.schemaProblems(wait, payload);
    if (problems) throw problems;
    if (!(await this.waits.claimEvent(organizationId, executionId, wait.stepId))) throw notWaiting();
    const event: RunEvent = { name, stepId: wait.stepId, payload, via: 'api' };
    try {
      await this.client.workflow.getHandle(executionId).startUpdate(deliverEventUpdate, { args: [event], waitForStage: WorkflowUpdateStage.ACCEPTED });
    } catch (err) {
      if (refusedByRun(err)) throw notWaiting();
      // Not delivered (Temporal slow or unreachable): the wait takes an event again.
      await this.waits.releaseEvent(organizationId, executionId, wait.stepId);
      throw err;
    }
    return { executionId, stepId: wait.stepId, event: name };
  }

  /**
   * A resume link's call: the payload checked, the link taken (once), the
   * event delivered, then what the run tells next within the sync timeout
   * (its next return step's response, that it waits again, how it ended).
   * Every refusal says only that the link or the payload was refused.
   */
  async resume(token: string, payload: unknown): Promise<{ executionId: string; answer: DeliverableReply }> {
    // Its size first: it says nothing of the link, and the events route answers the same.
    if (payloadTooLarge(payload)) throw tooLarge();
    const hash = ResumeLinks.hash(token);
    const wait = await this.waits.byLink(hash);
    if (!wait?.eventName) throw unknownLink();
    if (this.schemaProblems(wait, payload)) throw new ResumeLinkRefused(400, 'invalid_payload', 'The payload was refused');
    if (!(await this.waits.claimLink(hash))) throw unknownLink();
    const event: RunEvent = { name: wait.eventName, stepId: wait.stepId, payload, via: 'link' };
    const run = this.client.workflow.getHandle(wait.executionId);
    // Delivered first, under a bound of its own: a link is used up only by an event the run took.
    let update;
    try {
      update = await this.client.withAbortSignal(AbortSignal.timeout(DELIVERY_TIMEOUT_MS), () =>
        run.startUpdate(deliverEventUpdate, { args: [event], waitForStage: WorkflowUpdateStage.ACCEPTED }),
      );
    } catch (err) {
      if (refusedByRun(err)) throw unknownLink();
      // Not delivered (Temporal slow or unreachable): the holder may try again.
      await this.waits.releaseEvent(wait.organizationId, wait.executionId, wait.stepId);
      throw err;
    }
    const deadline = AbortSignal.timeout(this.syncTimeoutMs);
    const answer: AwaitedReply = await this.client.withAbortSignal(deadline, () => update.result()).catch((): AwaitedReply => ({ kind: 'timeout' }));
    return { executionId: wait.executionId, answer: await this.replies.resolve(wait.organizationId, wait.executionId, answer) };
  }

  /** The payload's problems against the wait's schema (400 naming the fields); undefined when it is fine. Its size is checked before. */
  private schemaProblems(wait: WaitRow, payload: unknown): AppError | undefined {
    if (!wait.eventSchema) return undefined;
    const validate = this.validator(wait.eventSchema);
    if (validate(payload)) return undefined;
    return new ValidationError(
      "The event payload does not match the wait step's schema",
      ajvIssues(validate.errors ?? [], 'payload').slice(0, MAX_PAYLOAD_ISSUES),
      'invalid_payload',
    );
  }

  /** The schema's check: patterns on RE2 within a work budget (organization-ajv.ts), so no payload stalls the process. */
  private validator(schema: Record<string, unknown>): SchemaCheck {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      try {
        validate = compileOrganizationSchema(schema, { allErrors: true, formats: true });
      } catch (err) {
        // Saved before a rule it breaks (a pattern RE2 cannot run): every payload is refused, saying why.
        validate = refusingCheck(`cannot be checked: the wait step's schema is refused (${(err as Error).message})`);
      }
      if (this.validators.size >= VALIDATORS_KEPT) this.validators.delete(this.validators.keys().next().value!);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

const payloadTooLarge = (payload: unknown) => Buffer.byteLength(JSON.stringify(payload ?? null)) > MAX_EVENT_PAYLOAD_BYTES;
const tooLarge = () => new AppError(413, 'payload_too_large', `An event payload is at most ${MAX_EVENT_PAYLOAD_BYTES} bytes of JSON`);

/** The run refused the event (not waiting for it, already has it) or is gone: the caller's problem, not an outage. */
function refusedByRun(err: unknown): boolean {
  if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return true;
  // FAILED_PRECONDITION: the workflow closed while the update was on its way.
  return isGrpcServiceError(err) && err.code === 9;
}
