import type { DigestAlgorithm, DigestEncoding } from './digest';
import { renderLayout } from './hmac-layout';
import type { VerificationConfig } from './scheme-config';

export { HEADERS } from './vendor-headers';

// What each scheme signs and how it writes the result, shared by signing and
// verification so that the two cannot drift apart.

export const GITHUB_PREFIX = 'sha256=';
export const SLACK_VERSION = 'v0';
export const STRIPE_SCHEME = 'v1';

export function digestFormat(config: VerificationConfig): { algorithm: DigestAlgorithm; encoding: DigestEncoding } {
  switch (config.scheme) {
    case 'hmac':
      return { algorithm: config.algorithm, encoding: config.encoding };
    case 'shopify':
      return { algorithm: 'sha256', encoding: 'base64' };
    case 'twilio':
      return { algorithm: 'sha1', encoding: 'base64' };
    default:
      return { algorithm: 'sha256', encoding: 'hex' };
  }
}

/** Whether the scheme signs a timestamp along with the body (and so refuses a late delivery). */
export function signsTimestamp(config: VerificationConfig): boolean {
  return config.scheme === 'stripe' || config.scheme === 'slack' || (config.scheme === 'hmac' && config.timestampHeader !== undefined);
}

/** The bytes that every scheme but Twilio's signs (Twilio signs the URL: twilio-signing-input.ts), in pieces. */
export function bodyMessage(config: VerificationConfig, body: Buffer, timestamp: string | undefined): Buffer[] {
  switch (config.scheme) {
    case 'stripe':
      return [Buffer.from(`${timestamp}.`), body];
    case 'slack':
      return [Buffer.from(`${SLACK_VERSION}:${timestamp}:`), body];
    case 'hmac':
      return renderLayout(config.payload, timestamp, body);
    default:
      return [body];
  }
}
