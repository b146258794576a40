import { signedByAny } from './digest';
import type { VerificationConfig } from './scheme-config';
import type { SignedDelivery } from './signed-delivery';
import { readClaim } from './signature-claim';
import { withinTolerance } from './signed-timestamp';

export type { SignedDelivery } from './signed-delivery';

export type VerifyOutcome = { ok: true } | { ok: false; code: 'invalid_signature' | 'timestamp_out_of_tolerance' };

const INVALID: VerifyOutcome = { ok: false, code: 'invalid_signature' };

/**
 * Whether a delivery was signed, under the trigger's scheme, with one of the
 * secrets currently valid (during a rotation the old and the new one both
 * are). Never throws on what the sender controls: a missing, malformed or
 * oversized header is an invalid signature like a wrong one.
 *
 * The timestamp is judged only once the signature holds, as Stripe's library
 * does: a stale delivery is reported as such only when it is genuine, so a
 * forger learns nothing from the answer about which part was wrong.
 */
export function verifyDelivery(config: VerificationConfig, secrets: readonly string[], delivery: SignedDelivery, nowMs: number): VerifyOutcome {
  // An empty key is one anybody can sign with.
  const keys = secrets.filter((secret) => secret.length > 0);
  const claim = readClaim(config, delivery);
  if (!claim || !signedByAny(claim.algorithm, keys, claim.messages, claim.presented)) return INVALID;
  if (claim.timestampSeconds !== undefined && 'toleranceSeconds' in config && !withinTolerance(claim.timestampSeconds, nowMs, config.toleranceSeconds)) {
    return { ok: false, code: 'timestamp_out_of_tolerance' };
  }
  return { ok: true };
}
