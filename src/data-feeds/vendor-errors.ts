import type { Vendor } from '../config/config';

/** How vendors are named in messages. */
export const VENDOR_NAMES: Record<Vendor, string> = { twilio: 'Twilio', github: 'GitHub', hubspot: 'HubSpot' };

/**
 * A vendor request that did not give a usable answer. Messages name the
 * vendor, the status and at most a short vendor message: never a header,
 * a credential or a URL with its query. `name` is the failure's type once a
 * sync activity turns it into a Temporal failure.
 */
export abstract class VendorError extends Error {
  abstract readonly retryable: boolean;
  constructor(
    readonly vendor: Vendor,
    /** The HTTP status, or null when no answer came (network, timeout). */
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 429 (or GitHub's 403 for an exhausted quota or a secondary limit): try again after `retryAfterMs`. */
export class VendorRateLimited extends VendorError {
  readonly retryable = true;
  constructor(
    vendor: Vendor,
    status: number,
    readonly retryAfterMs: number,
  ) {
    super(vendor, status, `${VENDOR_NAMES[vendor]} rate limit reached (${status}); retry in ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

/** 5xx, a network failure, a timeout or an answer that is not the vendor's documented shape: worth retrying later. */
export class VendorUnavailable extends VendorError {
  readonly retryable = true;
}

/** Any other 4xx, a missing credential or a refused address: retrying would fail the same way. */
export class VendorRejected extends VendorError {
  readonly retryable = false;
}

/** The connection lacks what the feed authenticates with (e.g. an OAuth access token). */
export function missingCredential(vendor: Vendor, what: string): VendorRejected {
  return new VendorRejected(vendor, null, `The ${VENDOR_NAMES[vendor]} connection has no ${what}: reconnect it (authorize again) and retry the sync`);
}

/** A 2xx answer that is not what the vendor documents. */
export function unexpectedShape(vendor: Vendor, what: string): VendorUnavailable {
  return new VendorUnavailable(vendor, null, `${VENDOR_NAMES[vendor]} answered in an unexpected shape: ${what}`);
}
