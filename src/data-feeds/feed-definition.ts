import type { Vendor } from '../config/config';
import type { FieldDefinition } from '../data-sources/data-sources.schemas';

/**
 * What a built-in data feed is: how it pages one vendor API through a
 * connection of the matching type, and the records it writes. A feed is
 * pure protocol (requests and their answers); the sync workflow decides
 * windows, retries and where the records go.
 */

/** An ISO 8601 window, start inclusive, end exclusive. */
export interface FeedWindow {
  startDate: string;
  endDate: string;
}

/** One request to the vendor. Headers may carry the connection's credentials: never log or persist a request. */
export interface FeedRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** JSON body for POST (HubSpot's search API). */
  body?: unknown;
}

export interface FeedResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON when the vendor answered JSON, else the text. */
  body: unknown;
}

/**
 * The vendor HTTP a feed pages through. `send` answers 2xx responses only;
 * it throws `VendorRateLimited` on 429 and GitHub's rate-limit 403s (with
 * the wait the vendor asked for), `VendorUnavailable` on 5xx or network failure (retryable), and
 * `VendorRejected` on other 4xx (bad credentials, no access: not retryable).
 */
export interface FeedHttp {
  send(request: FeedRequest): Promise<FeedResponse>;
}

export interface FeedRecord {
  /** The vendor's own id: re-syncing a window upserts by it, so nothing duplicates. */
  key: string;
  value: Record<string, unknown>;
}

export interface FeedPage {
  records: FeedRecord[];
  /**
   * Where the next page starts, or null after the last page. It is kept in
   * Temporal history between activities, so it holds no secret and no data:
   * a vendor's next-page URL or paging token (at most 2 KB).
   */
  next: string | null;
}

export interface FeedPageInput {
  /** The vendor's base URL from config (no trailing slash); every URL the feed builds starts with it. */
  baseUrl: string;
  /** The connection's decrypted config (its type is the feed's connectionType). */
  config: Record<string, unknown>;
  window: FeedWindow;
  /** null for the first page of the window, else the previous page's `next`. */
  cursor: string | null;
  /**
   * The values the table already holds for these keys (absent keys: never
   * synced). A feed uses it to skip follow-up requests whose answer it
   * already has, such as a call's recording.
   */
  stored(keys: string[]): Promise<Map<string, Record<string, unknown>>>;
}

/** Keys to check against the vendor, at most `batchSize` of a `keys` deletion strategy. */
export interface FeedKeysInput {
  baseUrl: string;
  config: Record<string, unknown>;
  keys: string[];
}

/**
 * How deletions at the vendor reach the table.
 *
 * - `listing`: the feed's list is by a time that never changes (a call's
 *   start), so a complete listing of a window shows every record of that
 *   window still at the vendor; stored records of the window it did not list
 *   were deleted. Every sync mirrors deletions in its own window, and a
 *   reconciliation re-lists the last `reconcileWindowDays`.
 * - `keys`: the list is by a time that moves (last update), so listings
 *   cannot show absence; a reconciliation asks the vendor which stored keys
 *   still exist, `batchSize` at a time, over the whole table.
 */
export type FeedDeletions =
  | { kind: 'listing'; reconcileWindowDays: number }
  | {
      kind: 'keys';
      batchSize: number;
      /** The keys among `input.keys` that still exist at the vendor (and are not archived); the rest were deleted. */
      existing(input: FeedKeysInput, http: FeedHttp): Promise<Set<string>>;
    };

export interface FeedDefinition {
  /** `<vendor>:<feed>`, the data source's `type` (and so the `analyticsTag` of tables shared from it). */
  key: string;
  vendor: Vendor;
  /** The connection type whose connections the feed reads through (src/connections/types/vendor-types.ts). */
  connectionType: string;
  title: string;
  /** The record schema its data source is created with. Exactly one date field is the time dimension. */
  recordSchema: { name: string; fields: Record<string, FieldDefinition> };
  /**
   * How far before `syncedThrough` a sync without dates starts, by default
   * (a source may set its own): what changes at the vendor after it was first
   * read (a call's price, a search index that lags) is read again there.
   */
  lookbackMinutes: number;
  deletions: FeedDeletions;
  /** One page of the window's records, through `http` (one or a few vendor requests). */
  fetchPage(input: FeedPageInput, http: FeedHttp): Promise<FeedPage>;
}
