import type { Response } from 'express';
import { sendableAnswerHeaders } from '../http/answer-headers';
import type { WebhookResponse } from '../../workflows/run.types';
import type { ExecutionsRepository } from './executions.repository';
import type { SealedResponseVault } from './sealed-response-vault';
import type { AwaitedReply } from './awaited-answers';

/** A run's answer with the response itself in place of a masked copy or a reference (ReplyResolver.resolve). */
export type DeliverableReply = Exclude<AwaitedReply, { kind: 'response' }> | { kind: 'response'; response: WebhookResponse };

/** What a caller is owed: the run's resolved answer, or for a run nobody waits for, that it started. */
export type HttpReply = DeliverableReply | { kind: 'started' };

/**
 * The response a return step owes its caller. The copy the run carries is
 * masked, or only a reference when large; the sealed original (when it held
 * secrets) or the recorded output stands in for it.
 */
export class ReplyResolver {
  constructor(
    private readonly executions: Pick<ExecutionsRepository, 'stepOutputs'>,
    private readonly vault: Pick<SealedResponseVault, 'open'>,
  ) {}

  /**
   * The answer with the response the caller is owed in place of the run's
   * copy; other answers as they are. `keep`: a sealed original stays for
   * other callers of the same run (a webhook delivery's duplicates).
   */
  async resolve(organizationId: string, executionId: string, answer: AwaitedReply, options: { keep?: boolean } = {}): Promise<DeliverableReply> {
    if (answer.kind !== 'response') return answer;
    return { kind: 'response', response: await this.response(organizationId, executionId, answer, options.keep) };
  }

  private async response(
    organizationId: string,
    executionId: string,
    answer: Extract<AwaitedReply, { kind: 'response' }>,
    keep = false,
  ): Promise<WebhookResponse> {
    if (answer.sealed) {
      const original = await this.vault.open(organizationId, executionId, { keep });
      if (original) return original;
    }
    if ('response' in answer) return answer.response;
    const outputs = await this.executions.stepOutputs(organizationId, executionId, [answer.record]);
    return outputs.get(answer.record)?.output as WebhookResponse;
  }
}

/**
 * Sends a caller what the run told it (resolved by ReplyResolver): 202 for a run
 * nobody waits for, the return step's response, or a clear status naming the
 * execution when there is none. The execution id always travels in `X-Execution-Id`.
 */
export function sendReply(res: Response, executionId: string, answer: HttpReply): void {
  res.set('X-Execution-Id', executionId);
  switch (answer.kind) {
    case 'started':
      res.status(202).json({ executionId, status: 'running' });
      return;
    case 'response': {
      const response = answer.response;
      // The service's security headers (set for every answer before any route runs) stay: a workflow's own policy is added beside them.
      for (const [name, value] of sendableAnswerHeaders(response.headers)) {
        if (name.toLowerCase() === 'content-security-policy') res.append('Content-Security-Policy', value);
        else res.set(name, value);
      }
      res.status(response.statusCode);
      if (response.body === null || response.body === undefined) res.end();
      else if (typeof response.body === 'string') res.type(res.get('Content-Type') ?? 'text/plain; charset=utf-8').send(response.body);
      else res.json(response.body);
      return;
    }
    case 'completed':
      res.status(200).json({ executionId, status: 'completed', message: 'The run finished without reaching a return step' });
      return;
    case 'waiting':
      res.status(202).json({
        executionId,
        status: 'waiting',
        waitingFor: { stepId: answer.stepId, ...(answer.event ? { event: answer.event } : {}) },
        message: `The run waits at step ${answer.stepId} and goes on later; read it at GET /executions/${executionId}`,
      });
      return;
    case 'timeout':
      res.status(202).json({ executionId, status: 'running', message: 'The run has not answered yet and goes on; read it at GET /executions/' + executionId });
      return;
    case 'cancelled':
      res.status(409).json({ error: { code: 'run_cancelled', message: 'The run was cancelled before it answered', executionId } });
      return;
    case 'failed':
      res.status(500).json({ error: { code: 'run_failed', message: answer.message, executionId, ...(answer.stepId ? { stepId: answer.stepId } : {}) } });
  }
}
