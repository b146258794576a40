import { HEADER_NAME_PATTERN } from '../../webhooks/signatures/scheme-config';
import { type JsonSchema, secret, variants } from './json-schema';

/** What a `webhook-signing` connection holds when a field is left out; the request signer falls back to the same. */
export const HMAC_SIGNING_DEFAULTS = {
  header: 'X-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  timestampHeader: 'X-Signature-Timestamp',
  payload: '{timestamp}.{body}',
} as const;

// A character of the layout's own text: anything but the `{` of a `{...}` placeholder.
const PLAIN = '(?:[^{]|\\{(?![^{}]*\\}))';
/**
 * {body} and {timestamp} exactly once each, no other placeholder: a timestamp
 * that is sent but not signed would let a captured request be replayed with a
 * fresh time, so the layout must sign it.
 */
const PAYLOAD_LAYOUT = `^${PLAIN}*(?:\\{body\\}${PLAIN}*\\{timestamp\\}|\\{timestamp\\}${PLAIN}*\\{body\\})${PLAIN}*$`;

const headerName = (description: string, defaultName: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: HEADER_NAME_PATTERN,
  default: defaultName,
  description,
});

// Shorter secrets are guessable from a signed request and its signature.
const signingSecret: JsonSchema = { ...secret('The shared secret the receiver verifies signatures with (at least 16 characters)'), minLength: 16 };

/**
 * `webhook-signing`: a secret that `core.http` and an agent's HTTP tool sign
 * requests with (`sign: { connection }`), keyed on `scheme`: a generic HMAC
 * header with a signed timestamp, or Stripe's `Stripe-Signature`.
 */
export const WEBHOOK_SIGNING: JsonSchema = variants(
  'Webhook signing secret',
  {
    hmac: {
      properties: {
        secret: signingSecret,
        header: headerName('Header that carries the signature', HMAC_SIGNING_DEFAULTS.header),
        algorithm: { type: 'string', enum: ['sha256', 'sha512'], default: HMAC_SIGNING_DEFAULTS.algorithm, description: 'HMAC digest' },
        encoding: { type: 'string', enum: ['hex', 'base64'], default: HMAC_SIGNING_DEFAULTS.encoding, description: 'How the digest is written' },
        prefix: { type: 'string', maxLength: 50, description: 'Text before the signature in the header, such as "sha256="' },
        timestampHeader: headerName('Header that carries the time of signing, in unix seconds', HMAC_SIGNING_DEFAULTS.timestampHeader),
        payload: {
          type: 'string',
          maxLength: 200,
          pattern: PAYLOAD_LAYOUT,
          default: HMAC_SIGNING_DEFAULTS.payload,
          description: 'What is signed: the layout with {timestamp} (the timestamp header value) and {body} (the exact bytes sent), each exactly once',
        },
      },
      required: ['secret'],
    },
    stripe: {
      properties: { secret: signingSecret },
      required: ['secret'],
    },
  },
  'scheme',
);
