import { decodeSignature, type DigestAlgorithm, type DigestEncoding } from './digest';
import type { VerificationConfig } from './scheme-config';
import { bodyMessage, digestFormat, GITHUB_PREFIX, HEADERS, SLACK_VERSION, STRIPE_SCHEME } from './scheme-formats';
import { parseUnixSeconds } from './signed-timestamp';
import { isFormContentType } from '../form-body';
import { twilioBodyHash, twilioBodyMatches, twilioFormParameters, twilioUrlCandidates } from './twilio-signing-input';
import type { SignedDelivery } from './signed-delivery';

/** What a delivery claims: signatures, and the messages one of them must be the HMAC of. */
export interface SignatureClaim {
  algorithm: DigestAlgorithm;
  presented: Buffer[];
  /** More than one only for Twilio, whose URL may have been signed in several spellings. */
  messages: Buffer[][];
  /** Unix seconds, for schemes that sign a timestamp. */
  timestampSeconds?: number;
}

// No real signature header comes near this; a longer one is refused before it is split.
const MAX_HEADER_LENGTH = 4096;
// Stripe sends one v1 per active secret: a handful at most. More is someone fishing.
const MAX_PRESENTED = 8;

function header(delivery: SignedDelivery, name: string): string | undefined {
  const value = delivery.header(name);
  return typeof value === 'string' && value.length <= MAX_HEADER_LENGTH ? value : undefined;
}

/**
 * Reads the signatures and signed timestamp a delivery presents under a scheme.
 * Undefined when they are missing or malformed: the caller refuses that as an
 * invalid signature, like one that does not match.
 */
export function readClaim(config: VerificationConfig, delivery: SignedDelivery): SignatureClaim | undefined {
  const { algorithm, encoding } = digestFormat(config);
  const decode = (text: string | undefined) => (text === undefined ? undefined : decodeSignature(text, encoding));
  const single = (signature: Buffer | undefined, timestamp?: string): SignatureClaim | undefined => {
    if (!signature) return undefined;
    const timestampSeconds = parseUnixSeconds(timestamp);
    if (timestamp !== undefined && timestampSeconds === undefined) return undefined;
    return { algorithm, presented: [signature], messages: [bodyMessage(config, delivery.body, timestamp)], timestampSeconds };
  };

  switch (config.scheme) {
    case 'stripe':
      return readStripe(config, delivery, header(delivery, HEADERS.stripe), encoding);
    case 'github':
      return single(decode(afterPrefix(header(delivery, HEADERS.github), GITHUB_PREFIX)));
    case 'slack': {
      const timestamp = header(delivery, HEADERS.slackTimestamp);
      if (timestamp === undefined) return undefined;
      return single(decode(afterPrefix(header(delivery, HEADERS.slackSignature), `${SLACK_VERSION}=`)), timestamp);
    }
    case 'shopify':
      return single(decode(header(delivery, HEADERS.shopify)));
    case 'hmac': {
      const signature = decode(afterPrefix(header(delivery, config.header), config.prefix ?? ''));
      if (!config.timestampHeader) return single(signature);
      const timestamp = header(delivery, config.timestampHeader);
      return timestamp === undefined ? undefined : single(signature, timestamp);
    }
    case 'twilio':
      return readTwilio(delivery, decode(header(delivery, HEADERS.twilio)), algorithm);
  }
}

function afterPrefix(value: string | undefined, prefix: string): string | undefined {
  return value?.startsWith(prefix) ? value.slice(prefix.length) : undefined;
}

/** `t=<unix>,v1=<hex>[,v1=<hex>…][,v0=…]`: one timestamp, and a v1 per secret Stripe currently signs with. */
function readStripe(config: VerificationConfig, delivery: SignedDelivery, value: string | undefined, encoding: DigestEncoding): SignatureClaim | undefined {
  if (value === undefined) return undefined;
  const timestamps: string[] = [];
  const presented: Buffer[] = [];
  let v1Seen = 0;
  for (const item of value.split(',')) {
    const equals = item.indexOf('=');
    const [key, text] = equals === -1 ? [item, ''] : [item.slice(0, equals), item.slice(equals + 1)];
    if (key === 't') timestamps.push(text);
    if (key === STRIPE_SCHEME && v1Seen++ < MAX_PRESENTED) {
      const signature = decodeSignature(text, encoding);
      if (signature) presented.push(signature);
    }
  }
  // Two timestamps leave it open which one was signed.
  const timestampSeconds = timestamps.length === 1 ? parseUnixSeconds(timestamps[0]) : undefined;
  if (timestampSeconds === undefined || presented.length === 0) return undefined;
  return { algorithm: 'sha256', presented, messages: [bodyMessage(config, delivery.body, timestamps[0])], timestampSeconds };
}

/**
 * Twilio signs the URL it called followed by the form parameters; a JSON
 * delivery instead carries the body's SHA-256 in the URL and the signature
 * covers the URL alone (validateRequestWithBody).
 */
function readTwilio(delivery: SignedDelivery, signature: Buffer | undefined, algorithm: DigestAlgorithm): SignatureClaim | undefined {
  if (!signature) return undefined;
  const bodyHash = twilioBodyHash(delivery.url);
  if (bodyHash !== undefined && !twilioBodyMatches(bodyHash, delivery.body)) return undefined;
  const form = bodyHash === undefined && isFormContentType(delivery.contentType);
  // Neither a form nor bound by bodySHA256, a body is covered by nothing Twilio signed: it could be anything.
  if (bodyHash === undefined && !form && delivery.body.length > 0) return undefined;
  const parameters = form ? twilioFormParameters(delivery.body) : '';
  const messages = twilioUrlCandidates(delivery.url).map((url) => [Buffer.from(url + parameters, 'utf8')]);
  return { algorithm, presented: [signature], messages };
}
