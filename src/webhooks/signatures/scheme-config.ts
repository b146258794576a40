import { z } from '../../openapi/zod';
import { layoutProblem } from './hmac-layout';
import { HEADERS } from './vendor-headers';

export const VERIFICATION_SCHEMES = ['stripe', 'github', 'slack', 'shopify', 'twilio', 'hmac'] as const;
export type VerificationScheme = (typeof VERIFICATION_SCHEMES)[number];

export const DEFAULT_TOLERANCE_SECONDS = 300;

const toleranceSeconds = z
  .number()
  .int()
  .min(1)
  .max(86_400)
  .default(DEFAULT_TOLERANCE_SECONDS)
  .openapi({ description: 'How far the signed timestamp may be from our clock, either way, in seconds' });

// RFC 9110 token characters: anything else could not have arrived as a header name. A source string, for JSON Schemas too.
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

export const HeaderName = z
  .string()
  .min(1)
  .max(100)
  .regex(new RegExp(HEADER_NAME_PATTERN), "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only");

const Stripe = z.strictObject({ scheme: z.literal('stripe'), toleranceSeconds });
const GitHub = z.strictObject({ scheme: z.literal('github') });
const Slack = z.strictObject({ scheme: z.literal('slack'), toleranceSeconds });
const Shopify = z.strictObject({ scheme: z.literal('shopify') });
const Twilio = z.strictObject({ scheme: z.literal('twilio') });

const Hmac = z
  .strictObject({
    scheme: z.literal('hmac'),
    header: HeaderName.openapi({ description: 'The header that carries the signature' }),
    algorithm: z.enum(['sha256', 'sha512']).default('sha256'),
    encoding: z.enum(['hex', 'base64']).default('hex'),
    prefix: z.string().max(50).optional().openapi({ description: 'Text before the signature in the header, such as "sha256="' }),
    timestampHeader: HeaderName.optional().openapi({ description: 'A header carrying the time of sending, in unix seconds (a whole number)' }),
    payload: z
      .string()
      .max(200)
      .optional()
      .openapi({
        description:
          'What was signed: {body} (the raw bytes) and, with timestampHeader, {timestamp}. ' +
          'Default "{body}", or "{timestamp}.{body}" with a timestampHeader',
      }),
    toleranceSeconds,
  })
  .superRefine((config, ctx) => {
    if (config.timestampHeader?.toLowerCase() === config.header.toLowerCase()) {
      ctx.addIssue({ code: 'custom', message: 'must be another header than the signature header', path: ['timestampHeader'] });
    }
    const problem = config.payload === undefined ? undefined : layoutProblem(config.payload, config.timestampHeader !== undefined);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['payload'] });
  })
  .transform((config) => ({ ...config, payload: config.payload ?? (config.timestampHeader ? '{timestamp}.{body}' : '{body}') }));

const schemeList = VERIFICATION_SCHEMES.join(', ');

/** How a webhook trigger recognizes its sender: one vendor's scheme, or a generic HMAC header. */
export const VerificationConfig = z
  .discriminatedUnion('scheme', [Stripe, GitHub, Slack, Shopify, Twilio, Hmac], {
    error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${schemeList}` : undefined),
  })
  .openapi('WebhookVerification', { description: `scheme is one of ${schemeList}` });
export type VerificationConfigInput = z.input<typeof VerificationConfig>;
export type VerificationConfig = z.output<typeof VerificationConfig>;

/** The headers a scheme reads, for documentation and for saying what a refused delivery lacked. */
export function schemeHeaders(config: VerificationConfig): string[] {
  switch (config.scheme) {
    case 'stripe':
      return [HEADERS.stripe];
    case 'github':
      return [HEADERS.github];
    case 'slack':
      return [HEADERS.slackSignature, HEADERS.slackTimestamp];
    case 'shopify':
      return [HEADERS.shopify];
    case 'twilio':
      return [HEADERS.twilio];
    case 'hmac':
      return config.timestampHeader ? [config.header, config.timestampHeader] : [config.header];
  }
}
