import type { FeedDefinition, FeedHttp, FeedKeysInput, FeedRecord } from '../feed-definition';
import { unexpectedShape, VendorUnavailable } from '../vendor-errors';
import { vendorMessage } from '../vendor-http';
import { checkedCursor, credential, foreignCursor, isoDate, numberOrNull, stringOrNull, windowMs } from './feed-values';

export const HUBSPOT_DEALS_LIMIT = 100;
/** HubSpot's search pages at most this many results of one query (past it: 400). */
export const HUBSPOT_SEARCH_CAP = 10_000;
const PROPERTIES = ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'createdate', 'hs_lastmodifieddate'];

interface HubspotDeal {
  id: string;
  properties: Record<string, unknown>;
}

/**
 * Deals modified in the window, through the CRM search API:
 * `POST /crm/v3/objects/deals/search` with `hs_lastmodifieddate` GTE start
 * and LT end (epoch milliseconds), oldest modification first. The cursor is
 * `<fromMs>:<after>`: the query's lower bound and the offset in it.
 *
 * Each next page is the same search from the last modification time the page
 * ended on, `after` 0, not the page's `paging.next.after`: a deal modified
 * during the sync moves to the end of the list, and plain offsets would then
 * skip the deal that slid into an already-read page. Deals of that
 * millisecond are read again (records upsert by id). Only when a whole page
 * shares one millisecond does paging follow `paging.next.after`, so it always
 * advances. Search refuses to page past 10,000 results, so should one
 * millisecond hold that many deals, paging moves one millisecond on and the
 * rest of that millisecond is skipped.
 */
export function hubspotDealsFeed(searchCap = HUBSPOT_SEARCH_CAP): FeedDefinition {
  return {
    key: 'hubspot:deals',
    vendor: 'hubspot',
    connectionType: 'hubspot-oauth',
    title: 'HubSpot deals',
    recordSchema: {
      name: 'HubSpot deals',
      fields: {
        name: { type: 'string', label: 'Deal name' },
        amount: { type: 'number', label: 'Amount', measure: true },
        stage: { type: 'string', label: 'Deal stage' },
        pipeline: { type: 'string', label: 'Pipeline' },
        closeDate: { type: 'date', label: 'Close date' },
        createdAt: { type: 'date', label: 'Created' },
        lastModifiedAt: { type: 'date', label: 'Last modified', timeDimension: true },
      },
    },
    // Search reads an index that lags writes by up to minutes: a deal modified near a window's end can be found only later.
    lookbackMinutes: 30,
    // Batch read takes at most 100 inputs.
    deletions: { kind: 'keys', batchSize: 100, existing: existingDeals },

    async fetchPage({ baseUrl, config, window, cursor }, http) {
      const token = credential('hubspot', config, 'accessToken', 'OAuth access token');
      const { start, end } = windowMs('hubspot', window);
      const at = cursor === null ? { from: start, after: 0 } : parseCursor(cursor, start, end);
      const filters = [
        { propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(at.from) },
        { propertyName: 'hs_lastmodifieddate', operator: 'LT', value: String(end) },
      ];
      const body = {
        filterGroups: [{ filters }],
        sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
        properties: PROPERTIES,
        limit: HUBSPOT_DEALS_LIMIT,
        ...(at.after > 0 ? { after: String(at.after) } : {}),
      };
      const res = await http.send({
        method: 'POST',
        url: `${baseUrl}/crm/v3/objects/deals/search`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        body,
      });
      const answer = res.body as { results?: unknown; paging?: { next?: { after?: unknown } } } | null;
      if (!answer || !Array.isArray(answer.results)) throw unexpectedShape('hubspot', 'the search answer has no "results" array');
      const deals = (answer.results as HubspotDeal[]).filter((d) => typeof d?.id === 'string' && d.properties && typeof d.properties === 'object');
      const modified = (d: HubspotDeal) => Date.parse(String(d.properties.hs_lastmodifieddate));
      const records: FeedRecord[] = deals.filter((d) => modified(d) >= start && modified(d) < end).map((d) => ({ key: d.id, value: dealValue(d) }));
      const after = answer.paging?.next?.after;
      if (after === undefined || after === null) return { records, next: null };
      const nextAfter = Number(after);
      if (!Number.isInteger(nextAfter) || nextAfter <= at.after) throw unexpectedShape('hubspot', 'paging.next.after does not advance');
      const last = Math.max(...deals.map(modified).filter((ms) => !Number.isNaN(ms)));
      if (last > at.from) return { records, next: last < end ? `${last}:0` : null };
      // The whole page is of one millisecond: page on within it, or past it at the result cap.
      if (nextAfter + HUBSPOT_DEALS_LIMIT <= searchCap) return { records, next: checkedCursor('hubspot', `${at.from}:${nextAfter}`) };
      return { records, next: at.from + 1 < end ? `${at.from + 1}:0` : null };
    },
  };
}

export const hubspotDeals = hubspotDealsFeed();

/**
 * The keys among `input.keys` that are live deals: `POST
 * /crm/v3/objects/deals/batch/read` with `archived: false` returns exactly
 * those, and names the rest (archived or deleted) in an OBJECT_NOT_FOUND
 * error of a 207 answer. Any other error category throws, so it is never
 * read as a deletion.
 *
 * Why not HubSpot's archived listing (`GET /crm/v3/objects/deals?archived=true`):
 * it has no time filter and no documented order, so it can only be read
 * whole, and deals purged from the recycle bin (after 90 days, or by a GDPR
 * delete) never appear in it, so a table would keep them forever. Asking
 * about the stored keys catches every way a deal leaves.
 */
export async function existingDeals({ baseUrl, config, keys }: FeedKeysInput, http: FeedHttp): Promise<Set<string>> {
  const token = credential('hubspot', config, 'accessToken', 'OAuth access token');
  if (keys.length === 0) return new Set();
  const res = await http.send({
    method: 'POST',
    url: `${baseUrl}/crm/v3/objects/deals/batch/read`,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    body: { inputs: keys.map((id) => ({ id })), properties: ['hs_object_id'], archived: false },
  });
  const answer = res.body as { results?: unknown; errors?: unknown } | null;
  if (!answer || !Array.isArray(answer.results)) throw unexpectedShape('hubspot', 'the batch read answer has no "results" array');
  if (answer.errors !== undefined && !Array.isArray(answer.errors)) throw unexpectedShape('hubspot', 'the batch read "errors" is not an array');
  for (const error of (answer.errors ?? []) as { category?: unknown }[]) {
    if (error?.category === 'OBJECT_NOT_FOUND') continue;
    const category = typeof error?.category === 'string' ? error.category : 'an error';
    throw new VendorUnavailable('hubspot', res.status, `HubSpot's batch read answered ${category}: ${vendorMessage(error) ?? 'no message'}`);
  }
  const asked = new Set(keys);
  const found = (answer.results as { id?: unknown; archived?: unknown }[]).filter((d) => typeof d?.id === 'string' && asked.has(d.id) && d.archived !== true);
  return new Set(found.map((d) => d.id as string));
}

function parseCursor(cursor: string, start: number, end: number): { from: number; after: number } {
  const match = /^(\d{1,16}):(\d{1,9})$/.exec(cursor);
  const from = match ? Number(match[1]) : NaN;
  if (!match || from < start || from >= end) throw foreignCursor('hubspot');
  return { from, after: Number(match[2]) };
}

function dealValue(d: HubspotDeal): Record<string, unknown> {
  const p = d.properties;
  return {
    name: stringOrNull(p.dealname),
    amount: numberOrNull(p.amount),
    stage: stringOrNull(p.dealstage),
    pipeline: stringOrNull(p.pipeline),
    closeDate: isoDate(p.closedate),
    createdAt: isoDate(p.createdate),
    lastModifiedAt: isoDate(p.hs_lastmodifieddate),
  };
}
