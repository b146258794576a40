/**
 * What a token endpoint's answer to a refresh_token grant means, whatever
 * the vendor's dialect:
 * - `tokens`: a new access token (and, when the vendor rotates it, a new refresh token);
 * - `refused`: the vendor will not refresh with these credentials (revoked or
 *   used refresh token, wrong client): asking again cannot help, reconnecting does;
 * - `unavailable`: no usable answer this time (5xx, 429, not JSON, an unknown shape).
 */
export type TokenEndpointOutcome =
  | { kind: 'tokens'; accessToken: string; refreshToken?: string; expiresInSeconds?: number }
  | { kind: 'refused'; status: number; code: string; description?: string }
  | { kind: 'unavailable'; status: number; reason: string };

/** Statuses that say "later", not "no": the request itself may be fine. */
const TRANSIENT_4XX = new Set([408, 425, 429]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * Reads one answer (`body` as the outbound client parsed it: an object when
 * it was JSON). Dialects: RFC 6749 (`{error, error_description}` with 400 or
 * 401), GitHub (the same fields with HTTP 200) and HubSpot (400
 * `{status: 'BAD_REFRESH_TOKEN', message, correlationId}`).
 */
export function readTokenOutcome(status: number, body: unknown): TokenEndpointOutcome {
  if (status >= 500 || TRANSIENT_4XX.has(status)) return { kind: 'unavailable', status, reason: `HTTP ${status}` };
  if (!isObject(body)) return { kind: 'unavailable', status, reason: `HTTP ${status} without a JSON body` };
  // GitHub says no with 200, so an error field decides before the status does.
  const oauthError = text(body.error);
  if (oauthError) return refusedOrUnavailable(status, oauthError, text(body.error_description));
  if (status >= 400) {
    const hubspotStatus = text(body.status);
    if (hubspotStatus) return refusedOrUnavailable(status, hubspotStatus, text(body.message));
    return { kind: 'unavailable', status, reason: `HTTP ${status} without an OAuth error` };
  }
  if (status < 200 || status >= 300) return { kind: 'unavailable', status, reason: `HTTP ${status}` };
  const accessToken = text(body.access_token);
  if (!accessToken) return { kind: 'unavailable', status, reason: 'the answer has no access_token' };
  return { kind: 'tokens', accessToken, refreshToken: text(body.refresh_token), expiresInSeconds: seconds(body.expires_in) };
}

/**
 * An error the vendor named is a refusal: the same grant would get the same
 * answer. The exceptions are errors that say the vendor itself is in trouble.
 */
function refusedOrUnavailable(status: number, code: string, description: string | undefined): TokenEndpointOutcome {
  if (/^(temporarily_unavailable|server_error|slow_down)$/i.test(code)) return { kind: 'unavailable', status, reason: code };
  return { kind: 'refused', status, code, description };
}

/** expires_in as a positive number of seconds (some servers send it as a numeric string); undefined otherwise. */
function seconds(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}
