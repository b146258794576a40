import type { OutboundRequest } from '../outbound/outbound-http';
import type { OAuthVendor } from '../config/config';
import { SERVICE_USER_AGENT } from '../config/service-identity';
import type { TokenEndpointOutcome } from './oauth-token-outcome';

/**
 * The connection types whose access token the service refreshes, and whose
 * token endpoint (config.vendors.tokenUrls) does it. Both vendors take the
 * client credentials in the form body. Another type is one entry here (and
 * its vendor's URL in the config).
 */
export const REFRESHABLE_TYPES: Readonly<Record<string, OAuthVendor>> = {
  'github-oauth': 'github',
  'hubspot-oauth': 'hubspot',
};

/** A token this close to its expiry is refreshed before use: a sync or step using it may run for minutes. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** The vendor whose endpoint refreshes this type's tokens; undefined for every other type. */
export function tokenVendorOf(type: string): OAuthVendor | undefined {
  return Object.hasOwn(REFRESHABLE_TYPES, type) ? REFRESHABLE_TYPES[type] : undefined;
}

/**
 * Whether a config's access token must be refreshed before use: there is
 * none, it expires within REFRESH_MARGIN_MS, or the vendor has just refused
 * it (`rejectedAccessToken` is the stored one). A stored token that differs
 * from the rejected one was refreshed meanwhile, so only its expiry counts.
 */
export function needsRefresh(config: Record<string, unknown>, now: number, rejectedAccessToken?: string): boolean {
  const accessToken = config.accessToken;
  if (typeof accessToken !== 'string' || accessToken === '') return true;
  if (rejectedAccessToken !== undefined && accessToken === rejectedAccessToken) return true;
  if (typeof config.expiresAt !== 'string') return false; // a token without a known expiry is used until refused
  const expiresAt = Date.parse(config.expiresAt);
  return Number.isFinite(expiresAt) && expiresAt - now <= REFRESH_MARGIN_MS;
}

/** The config fields a refresh sends that are missing (the schema requires them, but a config may predate that). */
export function missingForRefresh(config: Record<string, unknown>): string[] {
  return ['refreshToken', 'clientId', 'clientSecret'].filter((field) => typeof config[field] !== 'string' || config[field] === '');
}

/** The refresh_token grant (RFC 6749 section 6), as both vendors take it; call missingForRefresh first. */
export function refreshRequest(url: string, config: Record<string, unknown>, timeoutMs: number): OutboundRequest & { body: string } {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: String(config.refreshToken),
    client_id: String(config.clientId),
    client_secret: String(config.clientSecret),
  });
  return {
    url,
    method: 'POST',
    // GitHub answers form-encoded text unless asked for JSON.
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': SERVICE_USER_AGENT },
    body: form.toString(),
    timeoutMs,
  };
}

/**
 * The config with a refresh's tokens in it: the new access token, the new
 * refresh token when the vendor rotated it (else the one used), and the
 * expiry, dropped when the vendor names none (an old one would be wrong).
 */
export function withTokens(config: Record<string, unknown>, tokens: Extract<TokenEndpointOutcome, { kind: 'tokens' }>, now: number): Record<string, unknown> {
  const { expiresAt: _previous, ...rest } = config;
  const next: Record<string, unknown> = { ...rest, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? config.refreshToken };
  if (tokens.expiresInSeconds !== undefined) next.expiresAt = new Date(now + tokens.expiresInSeconds * 1000).toISOString();
  return next;
}
