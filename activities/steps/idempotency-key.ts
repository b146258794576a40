import { createHash } from 'node:crypto';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The `Idempotency-Key` of one outbound request of a run: derived from the
 * run and the request's place in it (`step`, or `step.tool-N` for an agent's
 * tool call), so every retry and every replay after a crash sends the same
 * key and another run sends another. A receiver that keeps the keys it has
 * seen drops the duplicate that at-least-once delivery can cause. Hashed into
 * UUID form: the receiver learns nothing of the run's ids or step names.
 */
export function idempotencyKey(executionId: string, requestId: string): string {
  const hex = createHash('sha256').update(`${executionId}\n${requestId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Adds the key unless the step set its own (any case). */
export function withIdempotencyKey(headers: Record<string, string>, key: string): void {
  if (Object.keys(headers).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase())) return;
  headers[IDEMPOTENCY_KEY_HEADER] = key;
}
