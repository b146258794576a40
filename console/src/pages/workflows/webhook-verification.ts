/**
 * How the triggers tab words a webhook trigger's signature verification and
 * deduplication, and turns its forms into the API's bodies
 * (src/webhooks/webhook-triggers.schemas.ts, delivery-ids.ts, signatures/).
 */
import type { Deduplication, DeliveryIdSource, Verification, VerificationScheme } from './workflow-model';

export const SCHEME_LABELS: Record<VerificationScheme, string> = {
  github: 'GitHub',
  stripe: 'Stripe',
  slack: 'Slack',
  shopify: 'Shopify',
  twilio: 'Twilio',
  hmac: 'HMAC',
};

/** The schemes whose signed timestamp has a tolerance (toleranceSeconds); hmac only with a timestamp header. */
export const TIMED_SCHEMES: readonly VerificationScheme[] = ['stripe', 'slack', 'hmac'];

/** src/webhooks/signatures/vendor-headers.ts: the headers each vendor signs with. */
const VENDOR_HEADERS: Record<Exclude<VerificationScheme, 'hmac'>, string[]> = {
  github: ['X-Hub-Signature-256'],
  stripe: ['Stripe-Signature'],
  slack: ['X-Slack-Signature', 'X-Slack-Request-Timestamp'],
  shopify: ['X-Shopify-Hmac-Sha256'],
  twilio: ['X-Twilio-Signature'],
};

/** src/webhooks/delivery-ids.ts DELIVERY_ID_PRESETS: where each vendor puts a delivery's id. */
export const DELIVERY_ID_PRESETS: Record<string, string> = {
  github: 'the X-GitHub-Delivery header',
  stripe: 'the body field id',
  shopify: 'the X-Shopify-Webhook-Id header',
  slack: 'the body field event_id',
  twilio: 'the I-Twilio-Idempotency-Token header',
};
/** What every trigger deduplicates by when nothing else is named (src/webhooks/delivery-ids.ts). */
const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The delivery id preset a scheme brings (every vendor has one; hmac none). */
export const presetOf = (scheme: VerificationScheme | '' | undefined): string | undefined => (scheme && scheme in DELIVERY_ID_PRESETS ? scheme : undefined);

/** The headers a delivery must carry to pass this verification. */
export function verificationHeaders(v: Verification): string[] {
  if (v.scheme !== 'hmac') return VENDOR_HEADERS[v.scheme];
  return v.timestampHeader ? [v.header, v.timestampHeader] : [v.header];
}

/** "GitHub signature (X-Hub-Signature-256)"; "HMAC-SHA256 signature (X-Signature: sha256=<hex>, X-Timestamp) of {timestamp}.{body}, …". */
export function describeVerification(v: Verification): string {
  const timed = 'toleranceSeconds' in v && (v.scheme !== 'hmac' || v.timestampHeader) ? `, timestamps within ${formatSeconds(v.toleranceSeconds)}` : '';
  if (v.scheme !== 'hmac') return `${SCHEME_LABELS[v.scheme]} signature (${verificationHeaders(v).join(', ')})${timed}`;
  const headers = [`${v.header}: ${v.prefix ?? ''}<${v.encoding}>`, ...(v.timestampHeader ? [v.timestampHeader] : [])];
  // The published schema is the request's, where payload is optional; answers carry the default the server applied.
  const payload = v.payload ?? (v.timestampHeader ? '{timestamp}.{body}' : '{body}');
  return `HMAC-${v.algorithm.toUpperCase()} signature (${headers.join(', ')}) of ${payload}${timed}`;
}

/** "Deduplicates by X-GitHub-Delivery (GitHub preset) for 4 days", or "Off: …". */
export function describeDeduplication(d: Deduplication): string {
  if (!d.enabled || !d.deliveryId) return 'Off: every delivery starts a run';
  const source = 'header' in d.deliveryId ? d.deliveryId.header : `the body field ${d.deliveryId.bodyField}`;
  const preset = d.preset ? ` (${SCHEME_LABELS[d.preset as VerificationScheme] ?? d.preset} preset)` : '';
  return `Deduplicates by ${source}${preset} for ${formatSeconds(d.windowSeconds)}`;
}

const UNITS = [
  { seconds: 86_400, one: 'day' },
  { seconds: 3600, one: 'hour' },
  { seconds: 60, one: 'minute' },
  { seconds: 1, one: 'second' },
] as const;

/** A duration in its largest whole unit: "4 days", "1 hour", "90 minutes". */
export function formatSeconds(seconds: number): string {
  const unit = UNITS.find((u) => seconds % u.seconds === 0) ?? UNITS[3];
  const n = seconds / unit.seconds;
  return `${n} ${unit.one}${n === 1 ? '' : 's'}`;
}

/** The verification form's fields, as typed (empty: the API's default, or absent). */
export interface VerificationDraft {
  scheme: VerificationScheme | '';
  signingSecret: string;
  toleranceSeconds: string;
  header: string;
  algorithm: 'sha256' | 'sha512';
  encoding: 'hex' | 'base64';
  prefix: string;
  timestampHeader: string;
  payload: string;
}

/** The form filled from a trigger's verification (empty when it has none); the secret is never known, so always empty. */
export function verificationDraft(v: Verification | null): VerificationDraft {
  const hmac = v?.scheme === 'hmac' ? v : undefined;
  return {
    scheme: v?.scheme ?? '',
    signingSecret: '',
    toleranceSeconds: v && 'toleranceSeconds' in v ? String(v.toleranceSeconds) : '',
    header: hmac?.header ?? '',
    algorithm: hmac?.algorithm ?? 'sha256',
    encoding: hmac?.encoding ?? 'hex',
    prefix: hmac?.prefix ?? '',
    timestampHeader: hmac?.timestampHeader ?? '',
    // A payload the API filled in by default is left out, so adding or removing a timestamp header changes it too.
    payload: hmac?.payload && hmac.payload !== (hmac.timestampHeader ? '{timestamp}.{body}' : '{body}') ? hmac.payload : '',
  };
}

/** `verification` (null: none) and `signingSecret` (absent when left empty) of a create or update body. */
export function verificationBody(draft: VerificationDraft): { verification: Record<string, unknown> | null; signingSecret?: string } {
  const secret = draft.signingSecret.trim() ? { signingSecret: draft.signingSecret.trim() } : {};
  if (!draft.scheme) return { verification: null, ...secret };
  const tolerance = TIMED_SCHEMES.includes(draft.scheme) && draft.toleranceSeconds.trim() !== '' ? { toleranceSeconds: Number(draft.toleranceSeconds) } : {};
  if (draft.scheme !== 'hmac') return { verification: { scheme: draft.scheme, ...tolerance }, ...secret };
  const optional = (key: 'prefix' | 'timestampHeader' | 'payload') => (draft[key] ? { [key]: draft[key] } : {});
  return {
    verification: {
      scheme: 'hmac',
      header: draft.header.trim(),
      algorithm: draft.algorithm,
      encoding: draft.encoding,
      ...optional('prefix'),
      ...optional('timestampHeader'),
      ...optional('payload'),
      ...tolerance,
    },
    ...secret,
  };
}

/** The deduplication form: on or off, where the id is ('default': the scheme's preset, else Idempotency-Key), the window. */
export interface DeduplicationDraft {
  enabled: boolean;
  source: 'default' | 'header' | 'bodyField' | `preset:${string}`;
  /** The header or body field name. */
  name: string;
  window: string;
  unit: 86_400 | 3600 | 60;
}

/**
 * The form filled from what the API shows. It shows the source in effect, so
 * one that matches the default is taken as the default (it would be the same
 * source, and it follows a later change of scheme as the default does).
 */
export function deduplicationDraft(d: Deduplication, scheme: VerificationScheme | undefined): DeduplicationDraft {
  const unit = ([86_400, 3600, 60] as const).find((u) => d.windowSeconds % u === 0) ?? 60;
  const window = String(Math.round((d.windowSeconds / unit) * 100) / 100);
  const schemePreset = presetOf(scheme);
  const base = { enabled: d.enabled, window, unit, name: '' };
  if (!d.enabled || !d.deliveryId) return { ...base, source: 'default' };
  if (d.preset) return { ...base, source: d.preset === schemePreset ? 'default' : `preset:${d.preset}` };
  if ('bodyField' in d.deliveryId) return { ...base, source: 'bodyField', name: d.deliveryId.bodyField };
  if (d.deliveryId.header === IDEMPOTENCY_KEY_HEADER && !schemePreset) return { ...base, source: 'default' };
  return { ...base, source: 'header', name: d.deliveryId.header };
}

/** The `deduplication` of an update body (the API replaces the whole setting). */
export function deduplicationBody(draft: DeduplicationDraft): { enabled: boolean; windowSeconds: number; deliveryId?: DeliveryIdSource } {
  const windowSeconds = Math.round(Number(draft.window) * draft.unit);
  const deliveryId: DeliveryIdSource | undefined =
    draft.source === 'header'
      ? { header: draft.name.trim() }
      : draft.source === 'bodyField'
        ? { bodyField: draft.name.trim() }
        : draft.source.startsWith('preset:')
          ? // The form offers only the presets the API names (DELIVERY_ID_PRESETS).
            { preset: draft.source.slice('preset:'.length) as Extract<DeliveryIdSource, { preset: unknown }>['preset'] }
          : undefined;
  return { enabled: draft.enabled, windowSeconds, ...(deliveryId ? { deliveryId } : {}) };
}
