import { createHash, createHmac } from 'node:crypto';
import type { MasterKeyring } from '../crypto/master-keyring';

/** The path a resume link is served at (its token follows). */
export const RESUME_PATH = '/resume';

/**
 * One-time links that send a waiting run its event (`core.wait` with an
 * `event`). A link is the HMAC of the run and the wait step under a key
 * derived from the master key: any step of the run can compute it before
 * the wait begins (an `http` step posts it to Slack, then the run waits),
 * nothing stores it, and nobody without the key can make one. The database
 * keeps only the SHA-256 of the token, beside the wait it opens.
 */
export class ResumeLinks {
  constructor(
    private readonly key: Buffer,
    /** Where callers reach the service (the webhook base URL), without a trailing slash. */
    private readonly baseUrl: string,
  ) {}

  token(executionId: string, stepId: string): string {
    return createHmac('sha256', this.key).update(`resume-link v1\0${executionId}\0${stepId}`).digest('base64url');
  }

  url(executionId: string, stepId: string): string {
    return `${this.baseUrl}${RESUME_PATH}/${this.token(executionId, stepId)}`;
  }

  /** What the database keys a link by. */
  static hash(token: string): Buffer {
    return createHash('sha256').update(token).digest();
  }
}

/** The service's resume links: keyed by the master key, served at the webhook base URL (where outside callers reach the service). */
export function resumeLinksFor(keyring: Pick<MasterKeyring, 'derive'>, webhookBaseUrl: string): ResumeLinks {
  return new ResumeLinks(keyring.derive('resume-links'), webhookBaseUrl.replace(/\/+$/, ''));
}
