import { hmac } from './digest';
import type { VerificationConfig } from './scheme-config';
import { bodyMessage, digestFormat, GITHUB_PREFIX, HEADERS, signsTimestamp, SLACK_VERSION, STRIPE_SCHEME } from './scheme-formats';
import { nowSeconds, parseUnixSeconds } from './signed-timestamp';
import { twilioBodyHash, twilioBodyMatches, twilioFormParameters } from './twilio-signing-input';

export interface SignOptions {
  /** Twilio only, and required there: the full URL the delivery goes to, with its query string. */
  url?: string;
  /** Unix seconds to sign, for the schemes that sign a time; default now. */
  timestampSeconds?: number;
}

/**
 * The headers that make a delivery of `body` pass verifyDelivery under the
 * same scheme and secret, as the vendor itself would send them.
 *
 * Twilio: the body is signed as form parameters (send it as
 * application/x-www-form-urlencoded), unless the URL carries bodySHA256
 * (twilioUrlWithBodyHash), in which case it is a JSON delivery and only the
 * URL is signed. Throws on a missing URL or a body hash that does not match.
 */
export function signDelivery(config: VerificationConfig, secret: string, body: Buffer, options: SignOptions = {}): Record<string, string> {
  if (secret === '') throw new Error('Cannot sign with an empty secret');
  const timestamp = signsTimestamp(config) ? timestampText(options.timestampSeconds) : undefined;
  const { algorithm, encoding } = digestFormat(config);
  const sign = (message: Buffer[]) => hmac(algorithm, secret, message).toString(encoding);
  const signature = () => sign(bodyMessage(config, body, timestamp));

  switch (config.scheme) {
    case 'stripe':
      return { [HEADERS.stripe]: `t=${timestamp},${STRIPE_SCHEME}=${signature()}` };
    case 'github':
      return { [HEADERS.github]: GITHUB_PREFIX + signature() };
    case 'slack':
      return { [HEADERS.slackSignature]: `${SLACK_VERSION}=${signature()}`, [HEADERS.slackTimestamp]: timestamp! };
    case 'shopify':
      return { [HEADERS.shopify]: signature() };
    case 'hmac': {
      const headers = { [config.header]: (config.prefix ?? '') + signature() };
      if (config.timestampHeader) headers[config.timestampHeader] = timestamp!;
      return headers;
    }
    case 'twilio':
      return { [HEADERS.twilio]: sign([twilioMessage(body, options.url)]) };
  }
}

// Only what the verifier would read back is signed.
function timestampText(timestampSeconds = nowSeconds()): string {
  const text = String(timestampSeconds);
  if (parseUnixSeconds(text) !== timestampSeconds) throw new Error(`timestampSeconds must be a whole number of unix seconds, not ${text}`);
  return text;
}

function twilioMessage(body: Buffer, url: string | undefined): Buffer {
  if (!url) throw new Error('Twilio signs the URL it calls: pass options.url, the full URL with its query string');
  const bodyHash = twilioBodyHash(url);
  if (bodyHash === undefined) return Buffer.from(url + twilioFormParameters(body), 'utf8');
  if (!twilioBodyMatches(bodyHash, body)) throw new Error("The URL's bodySHA256 is not the SHA-256 of this body: build the URL with twilioUrlWithBodyHash");
  return Buffer.from(url, 'utf8');
}
