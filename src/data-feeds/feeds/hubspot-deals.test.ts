import type { FeedRequest, FeedResponse } from '../feed-definition';
import { VendorRejected, VendorUnavailable } from '../vendor-errors';
import { existingDeals, hubspotDeals, hubspotDealsFeed } from './hubspot-deals';

/** Nothing stored yet. */
const stored = async () => new Map<string, Record<string, unknown>>();

const BASE = 'https://hubspot.test';
const config = { clientId: 'c', clientSecret: 's', refreshToken: 'r', accessToken: 'hs-tok' };
const START = Date.parse('2024-01-01T00:00:00Z');
const END = Date.parse('2024-01-02T00:00:00Z');
const window = { startDate: '2024-01-01T00:00:00Z', endDate: '2024-01-02T00:00:00Z' };

const deal = (id: string, modified: string, props: Record<string, unknown> = {}) => ({
  id,
  properties: {
    dealname: `Deal ${id}`,
    amount: '1500.50',
    dealstage: 'closedwon',
    pipeline: 'default',
    closedate: '2024-02-01T00:00:00Z',
    createdate: '2023-12-01T00:00:00.000Z',
    hs_lastmodifieddate: modified,
    hs_object_id: id,
    ...props,
  },
  createdAt: '2023-12-01T00:00:00.000Z',
  updatedAt: modified,
  archived: false,
});

function fakeHttp(body: unknown, status = 200) {
  const sent: FeedRequest[] = [];
  return { sent, send: async (req: FeedRequest): Promise<FeedResponse> => (sent.push(req), { status, headers: {}, body }) };
}

const searchBody = (from: number, after?: string) => ({
  filterGroups: [
    {
      filters: [
        { propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(from) },
        { propertyName: 'hs_lastmodifieddate', operator: 'LT', value: String(END) },
      ],
    },
  ],
  sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
  properties: ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'createdate', 'hs_lastmodifieddate'],
  limit: 100,
  ...(after ? { after } : {}),
});

describe('hubspot:deals', () => {
  it('searches the window by hs_lastmodifieddate in epoch ms with Bearer auth and maps deals', async () => {
    const http = fakeHttp({
      total: 150,
      results: [deal('11', '2024-01-01T05:00:00.000Z'), deal('12', '2024-01-01T06:00:00Z', { amount: null })],
      paging: { next: { after: '100' } },
    });
    const page = await hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(http.sent).toEqual([
      {
        method: 'POST',
        url: `${BASE}/crm/v3/objects/deals/search`,
        headers: { authorization: 'Bearer hs-tok', accept: 'application/json' },
        body: searchBody(START),
      },
    ]);
    expect(page.records).toEqual([
      {
        key: '11',
        value: {
          name: 'Deal 11',
          amount: 1500.5,
          stage: 'closedwon',
          pipeline: 'default',
          closeDate: '2024-02-01T00:00:00.000Z',
          createdAt: '2023-12-01T00:00:00.000Z',
          lastModifiedAt: '2024-01-01T05:00:00.000Z',
        },
      },
      { key: '12', value: expect.objectContaining({ amount: null }) },
    ]);
    // The next page restarts from the last modification seen, not at offset 100: a deal modified mid-sync would shift that offset.
    expect(page.next).toBe(`${Date.parse('2024-01-01T06:00:00Z')}:0`);
  });

  it('pages with after from the cursor and ends without paging.next', async () => {
    const http = fakeHttp({ total: 150, results: [deal('13', '2024-01-01T07:00:00Z')] });
    const page = await hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: `${START}:100`, stored }, http);
    expect(http.sent[0].body).toEqual(searchBody(START, '100'));
    expect(page.next).toBeNull();
  });

  it('restarts each next page from the last modification seen, after 0', async () => {
    const last = '2024-01-01T09:30:00.123Z';
    const http = fakeHttp({ total: 999, results: [deal('20', '2024-01-01T09:00:00Z'), deal('21', last)], paging: { next: { after: '300' } } });
    const page = await hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: `${START}:200`, stored }, http);
    expect(page.next).toBe(`${Date.parse(last)}:0`);
    const restarted = fakeHttp({ total: 1, results: [] });
    await hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: page.next, stored }, restarted);
    expect(restarted.sent[0].body).toEqual(searchBody(Date.parse(last)));
  });

  it('pages by after while a whole page shares the millisecond it started from', async () => {
    const at = Date.parse('2024-01-01T09:00:00Z');
    const sameMs = Array.from({ length: 100 }, (_, i) => deal(String(40 + i), '2024-01-01T09:00:00Z'));
    const first = await hubspotDeals.fetchPage(
      { baseUrl: BASE, config, window, cursor: `${at}:0`, stored },
      fakeHttp({ total: 999, results: sameMs, paging: { next: { after: '100' } } }),
    );
    expect(first.next).toBe(`${at}:100`);
    const http = fakeHttp({ total: 999, results: sameMs, paging: { next: { after: '200' } } });
    const second = await hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: first.next, stored }, http);
    expect(http.sent[0].body).toEqual(searchBody(at, '100'));
    expect(second.next).toBe(`${at}:200`);
  });

  it('moves one millisecond on when a whole capped query shares one modification time', async () => {
    const feed = hubspotDealsFeed(200);
    const at = Date.parse('2024-01-01T09:00:00Z');
    const http = fakeHttp({ total: 999, results: [deal('30', '2024-01-01T09:00:00Z')], paging: { next: { after: '200' } } });
    const page = await feed.fetchPage({ baseUrl: BASE, config, window, cursor: `${at}:100`, stored }, http);
    expect(page.next).toBe(`${at + 1}:0`);
  });

  it('refuses cursors it did not hand out, and answers that do not advance', async () => {
    const http = fakeHttp({ results: [], paging: { next: { after: '0' } } });
    for (const cursor of ['abc', `${END}:0`, `${START - 1}:0`, `${START}:-1`]) {
      await expect(hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor, stored }, http)).rejects.toBeInstanceOf(VendorRejected);
    }
    expect(http.sent).toHaveLength(0);
    await expect(hubspotDeals.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http)).rejects.toBeInstanceOf(VendorUnavailable);
  });

  it('asks to reconnect when the connection has no access token', async () => {
    const { accessToken: _, ...noToken } = config;
    const err = await hubspotDeals.fetchPage({ baseUrl: BASE, config: noToken, window, cursor: null, stored }, fakeHttp({})).catch((e: Error) => e);
    expect(err).toBeInstanceOf(VendorRejected);
    expect((err as Error).message).toMatch(/HubSpot connection has no OAuth access token: reconnect/);
  });
});

describe('hubspot:deals deletions (batch read)', () => {
  const read = (id: string) => ({
    id,
    properties: { hs_object_id: id },
    createdAt: '2023-12-01T00:00:00Z',
    updatedAt: '2024-01-01T00:00:00Z',
    archived: false,
  });
  const check = (keys: string[], http: ReturnType<typeof fakeHttp>) => existingDeals({ baseUrl: BASE, config, keys }, http);

  it('re-reads the last 30 minutes and checks stored keys 100 at a time', () => {
    expect(hubspotDeals.lookbackMinutes).toBe(30);
    expect(hubspotDeals.deletions).toEqual({ kind: 'keys', batchSize: 100, existing: existingDeals });
  });

  it('reads the keys without archived deals and keeps those returned (200: all found)', async () => {
    const http = fakeHttp({ status: 'COMPLETE', results: [read('11'), read('12')], startedAt: 'x', completedAt: 'y' });
    expect(await check(['11', '12'], http)).toEqual(new Set(['11', '12']));
    expect(http.sent).toEqual([
      {
        method: 'POST',
        url: `${BASE}/crm/v3/objects/deals/batch/read`,
        headers: { authorization: 'Bearer hs-tok', accept: 'application/json' },
        body: { inputs: [{ id: '11' }, { id: '12' }], properties: ['hs_object_id'], archived: false },
      },
    ]);
  });

  it('leaves out the ids a 207 names OBJECT_NOT_FOUND (archived or deleted)', async () => {
    const body = {
      status: 'COMPLETE',
      results: [read('12')],
      numErrors: 1,
      errors: [
        {
          status: 'error',
          category: 'OBJECT_NOT_FOUND',
          message: 'Could not get some DEAL objects, they may be deleted or not exist. Check that ids are valid.',
          context: { ids: ['11', '13'] },
        },
      ],
    };
    expect(await check(['11', '12', '13'], fakeHttp(body, 207))).toEqual(new Set(['12']));
  });

  it('throws on any other error category, and on answers of another shape', async () => {
    const other = { status: 'COMPLETE', results: [], numErrors: 1, errors: [{ status: 'error', category: 'RATE_LIMITS', message: 'slow down' }] };
    await expect(check(['11'], fakeHttp(other, 207))).rejects.toBeInstanceOf(VendorUnavailable);
    await expect(check(['11'], fakeHttp({ status: 'COMPLETE' }))).rejects.toBeInstanceOf(VendorUnavailable);
    await expect(check(['11'], fakeHttp({ results: [], errors: {} }, 207))).rejects.toBeInstanceOf(VendorUnavailable);
  });

  it('ignores results it did not ask about or that say archived', async () => {
    const http = fakeHttp({ status: 'COMPLETE', results: [read('99'), { ...read('11'), archived: true }, read('12')] });
    expect(await check(['11', '12'], http)).toEqual(new Set(['12']));
  });

  it('sends nothing for no keys', async () => {
    const http = fakeHttp({});
    expect(await check([], http)).toEqual(new Set());
    expect(http.sent).toHaveLength(0);
  });
});
