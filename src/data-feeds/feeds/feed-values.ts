import type { Vendor } from '../../config/config';
import type { FeedWindow } from '../feed-definition';
import { missingCredential, unexpectedShape, VendorRejected, VENDOR_NAMES } from '../vendor-errors';

/** Cursors travel through Temporal history: a longer one is refused rather than stored (feed-definition.ts). */
export const MAX_CURSOR_LENGTH = 2048;

/** A credential from the connection's config, or the VendorRejected telling the user to reconnect. */
export function credential(vendor: Vendor, config: Record<string, unknown>, key: string, what: string): string {
  const value = config[key];
  if (typeof value !== 'string' || value.trim() === '') throw missingCredential(vendor, what);
  return value;
}

/** The window as epoch milliseconds, refusing one that is not a valid, non-empty ISO 8601 range. */
export function windowMs(vendor: Vendor, window: FeedWindow): { start: number; end: number } {
  const start = Date.parse(window.startDate);
  const end = Date.parse(window.endDate);
  if (Number.isNaN(start) || Number.isNaN(end) || start >= end) {
    throw new VendorRejected(vendor, null, `The sync window ${window.startDate} .. ${window.endDate} is not a valid range (start before end, ISO 8601)`);
  }
  return { start, end };
}

/** ISO 8601 to the second, as vendors' date filters take it; `up` rounds a fraction up so an inclusive bound never cuts a record off. */
export function isoSeconds(ms: number, up = false): string {
  const rounded = up ? Math.ceil(ms / 1000) * 1000 : Math.floor(ms / 1000) * 1000;
  return new Date(rounded).toISOString().replace('.000Z', 'Z');
}

/** A vendor date (ISO 8601 or RFC 2822) as ISO 8601, or null. */
export function isoDate(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A vendor number (often sent as a string), or null. */
export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

export const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The next-page cursor, refused when longer than history should hold. */
export function checkedCursor(vendor: Vendor, next: string | null): string | null {
  if (next !== null && next.length > MAX_CURSOR_LENGTH) throw unexpectedShape(vendor, `a next-page reference longer than ${MAX_CURSOR_LENGTH} characters`);
  return next;
}

/** A cursor that is not one this feed hands out (it must point back into the same list on the configured host). */
export function foreignCursor(vendor: Vendor): VendorRejected {
  return new VendorRejected(vendor, null, `The next-page reference does not point into the ${VENDOR_NAMES[vendor]} list this feed reads; run the sync again`);
}
