import type { OAuthVendor } from '../config/config';
// Vendor errors, so a data feed sync retries these as it does every vendor failure (activities/data-feeds.ts maskedFailure).
import { VENDOR_NAMES, VendorRejected, VendorUnavailable } from '../data-feeds/vendor-errors';

/** A vendor message kept in ours is at most this long. */
const MAX_VENDOR_MESSAGE = 200;

/** The connection an error is about, as its messages name it. */
export interface NamedConnection {
  id: string;
  name: string;
}

/**
 * The vendor refused to refresh the access token (a revoked, expired or
 * already used refresh token; a wrong client id or secret). Not retryable:
 * only a new authorization helps. `status` is the HTTP status of the answer.
 */
export class OAuthRefreshRefused extends VendorRejected {
  constructor(
    vendor: OAuthVendor,
    readonly connectionId: string,
    status: number | null,
    message: string,
  ) {
    super(vendor, status, message);
  }
}

/** No usable answer from the token endpoint (5xx, 429, a network failure, a timeout, not JSON): worth retrying later. */
export class OAuthRefreshUnavailable extends VendorUnavailable {
  constructor(
    vendor: OAuthVendor,
    readonly connectionId: string,
    status: number | null,
    message: string,
  ) {
    super(vendor, status, message);
  }
}

/** What the user is told to do about a refused refresh. */
const reconnect = (c: NamedConnection) => `Reconnect it: authorize again and update the connection's config with PATCH /connections/${c.id}`;

export function refreshRefused(vendor: OAuthVendor, c: NamedConnection, status: number, code: string, vendorMessage: string | undefined): OAuthRefreshRefused {
  const said = vendorMessage ? `${code}: ${vendorMessage}` : code;
  return new OAuthRefreshRefused(
    vendor,
    c.id,
    status,
    `${VENDOR_NAMES[vendor]} refused to refresh the access token of connection "${c.name}" (${c.id}) (${said}). ${reconnect(c)}`,
  );
}

/** The config cannot make a refresh request at all (a field is missing). */
export function refreshImpossible(vendor: OAuthVendor, c: NamedConnection, missing: string[]): OAuthRefreshRefused {
  return new OAuthRefreshRefused(
    vendor,
    c.id,
    null,
    `Connection "${c.name}" (${c.id}) cannot refresh its ${VENDOR_NAMES[vendor]} access token: its config has no ${missing.join(', ')}. ${reconnect(c)}`,
  );
}

export function refreshUnavailable(vendor: OAuthVendor, c: NamedConnection, status: number | null, reason: string): OAuthRefreshUnavailable {
  return new OAuthRefreshUnavailable(
    vendor,
    c.id,
    status,
    `The access token of connection "${c.name}" (${c.id}) could not be refreshed: ${VENDOR_NAMES[vendor]}'s token endpoint gave no usable answer (${reason}); try again later`,
  );
}

/**
 * A vendor's own words, fit for a message: the request's secrets masked
 * (a vendor may echo what it was sent), on one line, at most MAX_VENDOR_MESSAGE characters.
 */
export function vendorWords(said: string | undefined, secrets: unknown[]): string | undefined {
  if (!said) return undefined;
  let out = said.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join('***');
  return out.length > MAX_VENDOR_MESSAGE ? `${out.slice(0, MAX_VENDOR_MESSAGE - 1)}…` : out;
}
