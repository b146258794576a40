import type { SecretBox } from '../crypto/secret-box';
import type { WebhookResponse } from '../../workflows/run.types';
import type { SealedResponsesRepository } from './sealed-responses.repository';

const record = (executionId: string) => `execution:${executionId}|answer`;

/**
 * Keeps a return step's answer exactly as its author wrote it when it holds
 * secret values. Masking protects what the service records (the step record,
 * Temporal history); the caller is owed the answer itself. The return step
 * seals it here, encrypted under the organization's key; the webhook host
 * opens it once to answer the caller, or for a deduplicated delivery keeps
 * it (an hour at most) for the delivery's duplicates.
 */
export class SealedResponseVault {
  constructor(
    private readonly records: SealedResponsesRepository,
    private readonly box: SecretBox,
  ) {}

  async seal(organizationId: string, executionId: string, response: WebhookResponse): Promise<void> {
    await this.records.put(organizationId, executionId, await this.box.encryptJson(organizationId, record(executionId), response));
  }

  /** The sealed answer, once unless `keep`; undefined when there is none (already collected, stale, or never sealed). */
  async open(organizationId: string, executionId: string, options: { keep?: boolean } = {}): Promise<WebhookResponse | undefined> {
    const sealed = options.keep ? await this.records.read(organizationId, executionId) : await this.records.take(organizationId, executionId);
    return sealed === undefined ? undefined : this.box.decryptJson<WebhookResponse>(organizationId, record(executionId), sealed);
  }
}
