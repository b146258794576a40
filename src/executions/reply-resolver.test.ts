import express from 'express';
import request from 'supertest';
import type { WebhookResponse } from '../../workflows/run.types';
import type { StoredOutput } from './executions.repository';
import { ReplyResolver, sendReply, type HttpReply } from './reply-resolver';
import { ORG, runRequest, starterOnFakes } from './starter.fixture';

/** Sealed originals by execution id; `opened` lists each open with whether it kept the original. */
function fakeVault(sealed: Record<string, WebhookResponse>) {
  const opened: Array<{ executionId: string; keep: boolean }> = [];
  return {
    opened,
    async open(organizationId: string, executionId: string, options: { keep?: boolean } = {}) {
      opened.push({ executionId, keep: options.keep === true });
      const original = organizationId === ORG ? sealed[executionId] : undefined;
      if (!options.keep) delete sealed[executionId];
      return original;
    },
  };
}

/** Recorded step outputs by execution and step id. */
function fakeOutputs(outputs: Record<string, Record<string, unknown>>) {
  return {
    async stepOutputs(organizationId: string, executionId: string, stepIds: string[]) {
      const recorded = organizationId === ORG ? (outputs[executionId] ?? {}) : {};
      return new Map<string, StoredOutput>(stepIds.filter((id) => id in recorded).map((id) => [id, { output: recorded[id], sealed: null }]));
    },
  };
}

/** What a caller receives for `answer`, sent by sendReply through Express. */
async function sent(answer: HttpReply) {
  const app = express().get('/', (_req, res) => sendReply(res, 'run-1', answer));
  return request(app).get('/');
}

describe('resolving the answer a caller is owed', () => {
  test('a sealed answer is the sealed original, kept for a delivery’s duplicates when asked', async () => {
    const original = { statusCode: 200, body: { token: 'secret-value' } };
    const vault = fakeVault({ 'run-1': original });
    const resolver = new ReplyResolver(fakeOutputs({}), vault);
    const masked = { kind: 'response', response: { statusCode: 200, body: { token: '***' } }, sealed: true } as const;
    expect(await resolver.resolve(ORG, 'run-1', masked, { keep: true })).toEqual({ kind: 'response', response: original });
    expect(await resolver.resolve(ORG, 'run-1', masked)).toEqual({ kind: 'response', response: original });
    expect(vault.opened).toEqual([
      { executionId: 'run-1', keep: true },
      { executionId: 'run-1', keep: false },
    ]);
    // Collected: the masked copy is all that is left.
    expect(await resolver.resolve(ORG, 'run-1', masked)).toEqual({ kind: 'response', response: masked.response });
  });

  test('a reference to a recorded response is read from its return step, with no sealed original', async () => {
    const recorded = { statusCode: 201, body: 'x'.repeat(10) };
    const resolver = new ReplyResolver(fakeOutputs({ 'run-1': { reply: recorded } }), fakeVault({}));
    expect(await resolver.resolve(ORG, 'run-1', { kind: 'response', record: 'reply', sealed: true })).toEqual({ kind: 'response', response: recorded });
  });

  test('answers other than a response pass as they are', async () => {
    const resolver = new ReplyResolver(fakeOutputs({}), fakeVault({}));
    for (const answer of [{ kind: 'timeout' }, { kind: 'completed' }, { kind: 'cancelled' }, { kind: 'waiting', stepId: 'gate' }] as const) {
      expect(await resolver.resolve(ORG, 'run-1', answer)).toEqual(answer);
    }
  });
});

describe('what the caller of an awaited run receives', () => {
  test('a failed run: 500 run_failed naming the step; a cancelled one: 409 run_cancelled', async () => {
    const { temporal, runs } = starterOnFakes();
    const resolver = new ReplyResolver(fakeOutputs({}), fakeVault({}));
    temporal.onStart = (run) => run.answer({ kind: 'failed', stepId: 'charge', message: 'card declined' });
    const failed = await runs.startAndAwaitReply(runRequest(), 5_000);
    const res = await sent(await resolver.resolve(ORG, failed.executionId, failed.answer));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'run_failed', message: 'card declined', executionId: 'run-1', stepId: 'charge' } });

    temporal.onStart = (run) => run.answer({ kind: 'cancelled' });
    const cancelled = await runs.startAndAwaitReply(runRequest(), 5_000);
    const refused = await sent(await resolver.resolve(ORG, cancelled.executionId, cancelled.answer));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'run_cancelled' });
  });

  test('the recorded response itself, with the execution id; 202 while the run waits or goes on', async () => {
    const { temporal, runs } = starterOnFakes();
    const resolver = new ReplyResolver(fakeOutputs({}), fakeVault({}));
    temporal.onStart = (run) => run.answer({ kind: 'response', response: { statusCode: 201, body: { greeting: 'Hello' }, headers: { 'X-Kind': 'greeting' } } });
    const answered = await runs.startAndAwaitReply(runRequest(), 5_000);
    const res = await sent(await resolver.resolve(ORG, answered.executionId, answered.answer));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ greeting: 'Hello' });
    expect(res.headers['x-execution-id']).toBe('run-1');

    const waiting = await sent({ kind: 'waiting', stepId: 'gate', event: 'go' });
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor: { stepId: 'gate', event: 'go' } });
    const going = await sent({ kind: 'timeout' });
    expect(going.status).toBe(202);
    expect(going.body).toMatchObject({ executionId: 'run-1', status: 'running' });
  });
});
