import { HMAC_SIGNING_DEFAULTS } from '../../src/connections/types/webhook-signing';
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks/signatures/scheme-config';
import { signDelivery } from '../../src/webhooks/signatures/sign-delivery';
import { StepError } from './step-errors';
import type { ResolvedConnection, StepScope } from './step-scope';

export const SIGNING_CONNECTION_TYPE = 'webhook-signing';

export type SigningConfig = Parameters<typeof signDelivery>[0];

// Part of signDelivery's config because its verifier reads it; signing ignores it.
const TOLERANCE_SECONDS = DEFAULT_TOLERANCE_SECONDS;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The signDelivery config of a `webhook-signing` connection. A field left
 * out takes the type's default, so a config stored before a default existed
 * signs as a new one would.
 */
export function signingConfigOf(connection: Pick<ResolvedConnection, 'name' | 'config'>): SigningConfig {
  const config = connection.config;
  if (config.scheme === 'stripe') return { scheme: 'stripe', toleranceSeconds: TOLERANCE_SECONDS };
  if (config.scheme !== 'hmac') {
    throw new StepError(`Connection "${connection.name}" names no signing scheme (hmac or stripe); save its config again`, 'InvalidStepInput');
  }
  const header = text(config.header) ?? HMAC_SIGNING_DEFAULTS.header;
  const timestampHeader = text(config.timestampHeader) ?? HMAC_SIGNING_DEFAULTS.timestampHeader;
  if (header.toLowerCase() === timestampHeader.toLowerCase()) {
    throw new StepError(`Connection "${connection.name}" sends the signature and the timestamp in the same header "${header}"`, 'InvalidStepInput');
  }
  const prefix = text(config.prefix);
  return {
    scheme: 'hmac',
    header,
    algorithm: config.algorithm === 'sha512' ? 'sha512' : 'sha256',
    encoding: config.encoding === 'base64' ? 'base64' : 'hex',
    ...(prefix ? { prefix } : {}),
    timestampHeader,
    payload: text(config.payload) ?? HMAC_SIGNING_DEFAULTS.payload,
    toleranceSeconds: TOLERANCE_SECONDS,
  };
}

/**
 * Signs the exact bytes about to be sent (none: the empty string) with a
 * `webhook-signing` connection, setting its headers over any the step set.
 * Called once per attempt, so a retry carries a fresh timestamp. The
 * signature is masked wherever the step records it: whoever holds it can
 * replay this body until the receiver's tolerance runs out.
 */
export function signRequest(headers: Record<string, string>, payload: string | Buffer | undefined, connection: ResolvedConnection, scope: StepScope): void {
  if (connection.type !== SIGNING_CONNECTION_TYPE) {
    throw new StepError(
      `sign.connection "${connection.name}" has type "${connection.type}", which cannot sign requests; use a ${SIGNING_CONNECTION_TYPE} connection`,
      'InvalidStepInput',
    );
  }
  const config = signingConfigOf(connection);
  const body = payload === undefined ? Buffer.alloc(0) : Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  let signed: Record<string, string>;
  try {
    signed = signDelivery(config, typeof connection.config.secret === 'string' ? connection.config.secret : '', body, {});
  } catch (err) {
    // signDelivery's messages name what is wrong, never the secret (which the scope masks besides).
    throw new StepError(`Connection "${connection.name}" cannot sign this request: ${(err as Error).message}`, 'InvalidStepInput');
  }
  for (const value of signatureForms(config, signed)) scope.addSecret(value);
  for (const [name, value] of Object.entries(signed)) replaceHeader(headers, name, value);
}

/** The signature header values, and each digest alone (a receiver may echo it back in its answer). The timestamp is no secret. */
function signatureForms(config: SigningConfig, signed: Record<string, string>): string[] {
  if (config.scheme === 'hmac') {
    const value = signed[config.header];
    return [value, value.slice(config.prefix?.length ?? 0)];
  }
  return Object.values(signed).flatMap((value) => [value, ...value.split(',').flatMap((part) => (part.startsWith('v1=') ? [part.slice(3)] : []))]);
}

/** Sets a header, dropping any the step set under the same name in another case. */
export function replaceHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  headers[name] = value;
}
