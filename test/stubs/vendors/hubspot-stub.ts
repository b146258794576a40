import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { sendJson, type StubHandler, type StubRequest } from '../http-stub';
import { bearerToken, type FailureWriter, hex, jsonBody, timeline } from './vendor-server';

/**
 * HubSpot's CRM v3 deals as far as the `hubspot:deals` feed uses them:
 * `POST /crm/v3/objects/deals/search` with filterGroups (filters ANDed within
 * a group, groups ORed), one sort, properties, limit (at most 200) and
 * `after`, answering `{total, results: [{id, properties, createdAt,
 * updatedAt, archived}], paging.next.after}`. Like HubSpot it refuses to page
 * past its result cap (10,000; `setSearchCap` lowers it for tests), and
 * search never finds archived deals. `POST .../batch/read` (at most 100
 * inputs) answers 200 when every id is found, else 207 with an
 * OBJECT_NOT_FOUND error naming the rest; `GET /crm/v3/objects/deals` lists
 * live deals, or archived ones with `archived=true`, paged by `after`.
 */

export interface HubspotDealOptions {
  /** First deal's hs_lastmodifieddate (default: a day ago); the rest follow `spacingSeconds` apart (default 60). */
  start?: string | Date;
  spacingSeconds?: number;
  stage?: string;
  pipeline?: string;
  /** Deal amount (default: 100 × (i + 1)); null leaves the property empty. */
  amount?: number | null;
}

const DEFAULT_PROPERTIES = ['amount', 'closedate', 'createdate', 'dealname', 'dealstage', 'hs_lastmodifieddate', 'hs_object_id', 'pipeline'];
const DATE_PROPERTIES = new Set(['closedate', 'createdate', 'hs_lastmodifieddate']);
// Every read answers these besides the properties asked for.
const ALWAYS = ['createdate', 'hs_lastmodifieddate', 'hs_object_id'];
const MAX_BATCH_INPUTS = 100;

interface StubDeal {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
}

/** A deal as reads answer it: the asked properties (the defaults when none), plus those every read returns. */
const view = (d: StubDeal, properties: string[]) => ({
  ...d,
  properties: Object.fromEntries([...new Set([...(properties.length ? properties : DEFAULT_PROPERTIES), ...ALWAYS])].map((p) => [p, d.properties[p] ?? null])),
});

const hubspotError = (res: http.ServerResponse, status: number, category: string, message: string, extra: Record<string, unknown> = {}, headers = {}) =>
  sendJson(res, status, { status: 'error', message, correlationId: randomUUID(), category, ...extra }, headers);

export const hubspotFailure: FailureWriter = (answer, res) => {
  const headers: Record<string, string> = answer.retryAfterSeconds !== undefined ? { 'retry-after': String(answer.retryAfterSeconds) } : {};
  if (answer.status === 429) {
    return hubspotError(res, 429, 'RATE_LIMITS', 'You have reached your secondly limit.', { errorType: 'RATE_LIMIT', policyName: 'SECONDLY' }, headers);
  }
  if (answer.status === 401) return hubspotError(res, 401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found.');
  if (answer.status >= 500) return hubspotError(res, answer.status, 'INTERNAL_ERROR', 'internal error', {}, headers);
  return hubspotError(res, answer.status, 'VALIDATION_ERROR', 'Request failed', {}, headers);
};

export function createHubspotApi() {
  const accessToken = `pat-na1-${hex(16)}`;
  const deals: StubDeal[] = [];
  let tokenCheck: ((token: string) => boolean) | null = null;
  let nextId = 9_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let cap = 10_000;

  function addDeals(n: number, opts: HubspotDealOptions = {}) {
    return Array.from({ length: n }, (_, i) => {
      const id = String(nextId++);
      const modified = timeline(opts, i).toISOString();
      const created = new Date(Date.parse(modified) - 86_400_000).toISOString();
      const amount = opts.amount === undefined ? String(100 * (i + 1)) : opts.amount === null ? null : String(opts.amount);
      const deal: StubDeal = {
        id,
        properties: {
          amount,
          closedate: new Date(Date.parse(modified) + 30 * 86_400_000).toISOString(),
          createdate: created,
          dealname: `Deal ${id}`,
          dealstage: opts.stage ?? 'appointmentscheduled',
          hs_lastmodifieddate: modified,
          hs_object_id: id,
          pipeline: opts.pipeline ?? 'default',
        },
        createdAt: created,
        updatedAt: modified,
        archived: false,
      };
      deals.push(deal);
      return deal;
    });
  }

  const authorized = (token: string | null) => token !== null && (tokenCheck ? tokenCheck(token) : token === accessToken);

  const route: StubHandler = (req, res) => {
    if (!authorized(bearerToken(req))) {
      return hubspotError(
        res,
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
    }
    if (req.path === '/crm/v3/objects/deals/search' && req.method === 'POST') return search(req, res);
    if (req.path === '/crm/v3/objects/deals/batch/read' && req.method === 'POST') return batchRead(req, res);
    if (req.path === '/crm/v3/objects/deals' && req.method === 'GET') return listDeals(req, res);
    return hubspotError(res, 404, 'OBJECT_NOT_FOUND', 'Resource not found');
  };

  function matches(deal: StubDeal, f: { propertyName: string; operator: string; value?: string }): boolean {
    const raw = deal.properties[f.propertyName] ?? null;
    if (f.operator === 'HAS_PROPERTY') return raw !== null;
    if (f.operator === 'NOT_HAS_PROPERTY') return raw === null;
    if (raw === null) return false;
    const date = DATE_PROPERTIES.has(f.propertyName);
    // Date filters take epoch milliseconds (or an ISO date); numbers compare as numbers, the rest as text.
    const have = date ? Date.parse(raw) : Number.isNaN(Number(raw)) ? raw : Number(raw);
    const want = date
      ? /^\d+$/.test(String(f.value))
        ? Number(f.value)
        : Date.parse(String(f.value))
      : typeof have === 'number'
        ? Number(f.value)
        : String(f.value);
    switch (f.operator) {
      case 'EQ':
        return have === want;
      case 'NEQ':
        return have !== want;
      case 'GT':
        return have > want;
      case 'GTE':
        return have >= want;
      case 'LT':
        return have < want;
      case 'LTE':
        return have <= want;
      default:
        return false;
    }
  }

  function search(req: StubRequest, res: http.ServerResponse) {
    const body = jsonBody(req) as Record<string, any> | undefined;
    const limit = body?.limit ?? 10;
    const after = Number(body?.after ?? 0);
    if (!body || !Number.isInteger(limit) || limit < 1 || limit > 200 || !Number.isInteger(after) || after < 0) {
      return hubspotError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1: limit must be between 1 and 200, after a non-negative integer');
    }
    if (after >= cap) return hubspotError(res, 400, 'VALIDATION_ERROR', `paging beyond ${cap} results is not supported`);
    const groups: { filters: { propertyName: string; operator: string; value?: string }[] }[] = body.filterGroups ?? [];
    const sort: { propertyName: string; direction: string } | undefined = body.sorts?.[0];
    const properties: string[] = body.properties ?? [];
    const live = deals.filter((d) => !d.archived);
    const found = live.filter((d) => groups.length === 0 || groups.some((g) => g.filters.every((f) => matches(d, f))));
    if (sort) {
      const sign = sort.direction === 'DESCENDING' ? -1 : 1;
      const key = (d: StubDeal) => {
        const v = d.properties[sort.propertyName] ?? '';
        return DATE_PROPERTIES.has(sort.propertyName) ? Date.parse(v) || 0 : Number(v);
      };
      found.sort((a, b) => sign * (key(a) - key(b)) || Number(a.id) - Number(b.id));
    }
    const page = found.slice(after, after + limit).map((d) => view(d, properties));
    const more = after + limit < found.length;
    sendJson(res, 200, { total: found.length, results: page, ...(more ? { paging: { next: { after: String(after + limit) } } } : {}) });
  }

  function batchRead(req: StubRequest, res: http.ServerResponse) {
    const body = jsonBody(req) as { inputs?: { id?: unknown }[]; properties?: string[]; archived?: boolean } | undefined;
    const inputs = body?.inputs;
    if (!Array.isArray(inputs) || !inputs.every((i) => typeof i?.id === 'string')) {
      return hubspotError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1: inputs must be a list of {"id": "..."}');
    }
    if (inputs.length > MAX_BATCH_INPUTS) {
      return hubspotError(res, 400, 'VALIDATION_ERROR', `Batch input cannot contain more than ${MAX_BATCH_INPUTS} inputs, got ${inputs.length}`);
    }
    const startedAt = new Date().toISOString();
    const archived = body?.archived === true;
    const ids = inputs.map((i) => i.id as string);
    const found = ids.map((id) => deals.find((d) => d.id === id && d.archived === archived)).filter((d) => d !== undefined);
    const missing = ids.filter((id) => !found.some((d) => d.id === id));
    const answer = { status: 'COMPLETE', results: found.map((d) => view(d, body?.properties ?? [])), startedAt, completedAt: new Date().toISOString() };
    if (missing.length === 0) return sendJson(res, 200, answer);
    const error = {
      status: 'error',
      category: 'OBJECT_NOT_FOUND',
      message: 'Could not get some DEAL objects, they may be deleted or not exist. Check that ids are valid.',
      context: { ids: missing },
    };
    sendJson(res, 207, { ...answer, numErrors: 1, errors: [error] });
  }

  /** The deals list: live ones, or archived ones with `archived=true` (no filter, no sort), paged by `after`. */
  function listDeals(req: StubRequest, res: http.ServerResponse) {
    const limit = Number(req.query.limit ?? 10);
    const after = Number(req.query.after ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100 || !Number.isInteger(after) || after < 0) {
      return hubspotError(res, 400, 'VALIDATION_ERROR', 'limit must be between 1 and 100, after a paging token from a previous page');
    }
    const archived = req.query.archived === 'true';
    const properties = req.query.properties ? req.query.properties.split(',') : [];
    const all = deals.filter((d) => d.archived === archived);
    const page = all.slice(after, after + limit).map((d) => view(d, properties));
    const next = after + limit < all.length ? String(after + limit) : null;
    const link = (a: string) => `/crm/v3/objects/deals?${new URLSearchParams({ ...req.query, after: a })}`;
    sendJson(res, 200, { results: page, ...(next ? { paging: { next: { after: next, link: link(next) } } } : {}) });
  }

  /** Archives these deals (HubSpot's delete: to the recycle bin), which leave search and `archived: false` reads. */
  function archiveDeals(ids: string[]) {
    const archivedAt = new Date().toISOString();
    for (const deal of deals) if (ids.includes(deal.id) && !deal.archived) Object.assign(deal, { archived: true, archivedAt });
  }

  /** Removes these deals for good (purged from the recycle bin, or a GDPR delete): not found archived either. */
  function removeDeals(ids: string[]) {
    const gone = new Set(ids);
    for (let i = deals.length - 1; i >= 0; i--) if (gone.has(deals[i].id)) deals.splice(i, 1);
  }

  return {
    accessToken,
    route,
    addDeals,
    archiveDeals,
    removeDeals,
    deals,
    setSearchCap: (n: number) => void (cap = n),
    /** Which bearer tokens authenticate (null: only `accessToken`). */
    setTokenCheck: (check: ((token: string) => boolean) | null) => void (tokenCheck = check),
  };
}
