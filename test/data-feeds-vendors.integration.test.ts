import { createOutboundHttp, type OutboundHttp } from '../src/outbound/outbound-http';
import type { Vendor } from '../src/config/config';
import type { FeedDefinition, FeedHttp, FeedPageInput, FeedRecord } from '../src/data-feeds/feed-definition';
import { findFeed } from '../src/data-feeds/feed-registry';
import { hubspotDealsFeed } from '../src/data-feeds/feeds/hubspot-deals';
import { VendorRateLimited, VendorRejected, VendorUnavailable } from '../src/data-feeds/vendor-errors';
import { createFeedHttp } from '../src/data-feeds/vendor-http';
import { startVendorStubs, type VendorStubs } from './stubs/vendor-apis';

// The feeds paged through the real SSRF-guarded client against the vendor stubs.
let stubs: VendorStubs;
let outbound: OutboundHttp;

beforeAll(async () => {
  stubs = await startVendorStubs();
  outbound = createOutboundHttp({ allowList: stubs.allowList, maxResponseBytes: 5_000_000, maxRedirects: 0 });
});
afterAll(async () => {
  await outbound.close();
  await stubs.close();
});
afterEach(() => stubs.setDelay(0));

const window = { startDate: '2024-03-01T00:00:00.000Z', endDate: '2024-03-02T00:00:00.000Z' };
const feed = (key: string) => findFeed(key)!;
const http = (vendor: Vendor, timeoutMs = 5000): FeedHttp => createFeedHttp(outbound, { vendor, timeoutMs });
const input = (f: FeedDefinition, config: Record<string, unknown>, cursor: string | null = null): FeedPageInput => ({
  baseUrl: stubs.urls[f.vendor],
  config,
  window,
  cursor,
  // Nothing stored: every completed call's recording is looked up, as on a first sync.
  stored: async () => new Map(),
});

/** Every page of the window, as a sync would read them. */
async function readAll(f: FeedDefinition, config: Record<string, unknown>) {
  const records: FeedRecord[] = [];
  let pages = 0;
  for (let cursor: string | null = null; pages === 0 || cursor !== null; pages++) {
    const page = await f.fetchPage(input(f, config, cursor), http(f.vendor));
    records.push(...page.records);
    cursor = page.next;
    if (pages > 100) throw new Error('paging does not end');
  }
  return { records, pages, keys: records.map((r) => r.key) };
}

const failure = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: Error) => err,
  );

describe('twilio:calls against the Twilio stub', () => {
  const f = feed('twilio:calls');
  let recorded: string[];
  let inWindow: string[];

  beforeAll(() => {
    stubs.twilio.addCalls(5, { start: '2024-02-29T23:55:00Z' });
    const withRec = stubs.twilio.addCalls(30, { start: '2024-03-01T00:00:00Z', spacingSeconds: 120, withRecording: true });
    const plain = stubs.twilio.addCalls(30, { start: '2024-03-01T00:01:00Z', spacingSeconds: 120 });
    const missed = stubs.twilio.addCalls(10, { start: '2024-03-01T03:00:00Z', spacingSeconds: 60, status: 'no-answer' });
    stubs.twilio.addCalls(5, { start: '2024-03-02T00:00:00Z' });
    inWindow = [...withRec, ...plain, ...missed].map((c) => c.sid);
    recorded = withRec.map((c) => c.sid);
  });

  it('pages every call of the window (50 a page), keyed by sid, with its recording reference', async () => {
    const before = stubs.requests.length;
    const { records, pages, keys } = await readAll(f, stubs.twilio.connectionConfig);
    expect(pages).toBe(2);
    expect(keys.sort()).toEqual([...inWindow].sort());
    const sent = stubs.requests.slice(before);
    const lists = sent.filter((r) => r.path.endsWith('/Calls.json'));
    expect(lists).toHaveLength(2);
    expect(lists[0].query).toEqual({ 'StartTime>': '2024-03-01T00:00:00Z', 'StartTime<': '2024-03-02T00:00:00Z', PageSize: '50' });
    expect(lists[1].query).toMatchObject({ Page: '1', PageToken: expect.stringMatching(/^PA/) });
    // One Recordings look-up per completed call, none for the ten unanswered ones.
    expect(sent.filter((r) => r.path.endsWith('/Recordings.json'))).toHaveLength(60);
    const byKey = new Map(records.map((r) => [r.key, r.value]));
    for (const call of recorded) {
      const ref = byKey.get(call)!.recording as string;
      expect(ref).toMatch(/^proxy\+twilio:recording:\/\/RE[0-9a-f]{32}$/);
      const sid = ref.split('://')[1];
      const media = await fetch(`${stubs.urls.twilio}/2010-04-01/Accounts/${stubs.twilio.accountSid}/Recordings/${sid}.json`, {
        headers: { authorization: `Basic ${Buffer.from(`${stubs.twilio.accountSid}:${stubs.twilio.authToken}`).toString('base64')}` },
      });
      expect(((await media.json()) as { call_sid: string }).call_sid).toBe(call);
    }
    const plain = records.filter((r) => !recorded.includes(r.key));
    expect(plain.every((r) => r.value.recording === null)).toBe(true);
    expect(byKey.get(recorded[0])).toMatchObject({ status: 'completed', startTime: '2024-03-01T00:00:00.000Z', duration: expect.any(Number) });
  });

  it('refuses wrong credentials as VendorRejected (401)', async () => {
    const err = await failure(f.fetchPage(input(f, { ...stubs.twilio.connectionConfig, authToken: 'wrong' }), http('twilio')));
    expect(err).toBeInstanceOf(VendorRejected);
    expect(err.message).toMatch(/^Twilio answered 401: Authenticate/);
    expect(err.message).not.toContain('wrong');
  });

  it('turns 429 with Retry-After into VendorRateLimited with that delay, and 500 into VendorUnavailable; the page then succeeds', async () => {
    stubs.failNext('twilio', 1, { status: 429, retryAfterSeconds: 7 });
    const limited = await failure(f.fetchPage(input(f, stubs.twilio.connectionConfig), http('twilio')));
    expect(limited).toBeInstanceOf(VendorRateLimited);
    expect((limited as VendorRateLimited).retryAfterMs).toBe(7000);
    stubs.failNext('twilio', 1, { status: 500 });
    expect(await failure(f.fetchPage(input(f, stubs.twilio.connectionConfig), http('twilio')))).toBeInstanceOf(VendorUnavailable);
    stubs.failNext('twilio', 1, { status: 0 });
    expect(await failure(f.fetchPage(input(f, stubs.twilio.connectionConfig), http('twilio')))).toBeInstanceOf(VendorUnavailable);
    const page = await f.fetchPage(input(f, stubs.twilio.connectionConfig), http('twilio'));
    // Twilio's StartTime< is on-or-before: the page holds the call starting exactly at the window's end, which the feed leaves for the next window.
    expect(page.records).toHaveLength(49);
    expect(page.records.every((r) => (r.value.startTime as string) < window.endDate)).toBe(true);
  });

  it('times out a slow answer as VendorUnavailable', async () => {
    stubs.setDelay(400);
    const err = await failure(f.fetchPage(input(f, stubs.twilio.connectionConfig), http('twilio', 150)));
    expect(err).toBeInstanceOf(VendorUnavailable);
    expect(err.message).toMatch(/timed out/);
  });
});

describe('github:issues against the GitHub stub', () => {
  const f = feed('github:issues');
  let inWindow: Record<string, any>[];

  beforeAll(() => {
    stubs.github.addIssues(3, { start: '2024-02-29T12:00:00Z' });
    inWindow = [
      ...stubs.github.addIssues(180, { start: '2024-03-01T00:00:00Z', spacingSeconds: 300 }),
      ...stubs.github.addIssues(40, { start: '2024-03-01T02:00:30Z', spacingSeconds: 600, pullRequest: true, repository: 'octo-org/other', state: 'closed' }),
    ];
    stubs.github.addIssues(4, { start: '2024-03-02T00:00:00Z' });
  });

  it('pages every issue updated in the window (100 a page), keyed by node_id, and stops at the window end', async () => {
    const before = stubs.requests.length;
    const { records, pages, keys } = await readAll(f, stubs.github.connectionConfig);
    expect(pages).toBe(3);
    expect([...new Set(keys)].sort()).toEqual(inWindow.map((i) => i.node_id).sort());
    const sent = stubs.requests.slice(before);
    expect(sent[0].query).toEqual({ filter: 'all', state: 'all', since: '2024-03-01T00:00:00Z', per_page: '100', sort: 'updated', direction: 'asc' });
    expect(sent[0].headers).toMatchObject({
      authorization: `Bearer ${stubs.github.accessToken}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
    const pr = records.find((r) => r.key === inWindow[180].node_id)!.value;
    expect(pr).toMatchObject({ isPullRequest: 'yes', repository: 'octo-org/other', state: 'closed', closedAt: expect.any(String) });
  });

  it('skips no issue when one read earlier is updated mid-sync', async () => {
    const first = await f.fetchPage(input(f, stubs.github.connectionConfig), http('github'));
    const moved = inWindow.find((i) => i.node_id === first.records[0].key)!;
    const previous = moved.updated_at;
    moved.updated_at = '2024-03-01T23:59:59Z'; // now last in the list: every later issue slides up one place
    try {
      const keys = new Set(first.records.map((r) => r.key));
      for (let cursor = first.next; cursor !== null;) {
        const page = await f.fetchPage(input(f, stubs.github.connectionConfig, cursor), http('github'));
        page.records.forEach((r) => keys.add(r.key));
        cursor = page.next;
      }
      expect(keys.size).toBe(inWindow.length);
    } finally {
      moved.updated_at = previous;
    }
  });

  it('maps the exhausted quota (403) to VendorRateLimited until its reset, a secondary limit (403, no Retry-After) to a minute, and wrong tokens to VendorRejected', async () => {
    stubs.failNext('github', 1, { status: 403, retryAfterSeconds: 120 });
    const limited = await failure(f.fetchPage(input(f, stubs.github.connectionConfig), http('github')));
    expect(limited).toBeInstanceOf(VendorRateLimited);
    expect((limited as VendorRateLimited).retryAfterMs).toBeGreaterThan(115_000);
    expect((limited as VendorRateLimited).retryAfterMs).toBeLessThanOrEqual(121_000);
    stubs.failNext('github', 1, { status: 403, secondaryLimit: true });
    const secondary = await failure(f.fetchPage(input(f, stubs.github.connectionConfig), http('github')));
    expect(secondary).toBeInstanceOf(VendorRateLimited);
    expect((secondary as VendorRateLimited).retryAfterMs).toBe(60_000);
    stubs.failNext('github', 1, { status: 429, retryAfterSeconds: 30 });
    expect(((await failure(f.fetchPage(input(f, stubs.github.connectionConfig), http('github')))) as VendorRateLimited).retryAfterMs).toBe(30_000);
    const rejected = await failure(f.fetchPage(input(f, { ...stubs.github.connectionConfig, accessToken: 'gho_wrong' }), http('github')));
    expect(rejected).toBeInstanceOf(VendorRejected);
    expect(rejected.message).toMatch(/^GitHub answered 401: Bad credentials/);
    stubs.failNext('github', 1, { status: 502 });
    expect(await failure(f.fetchPage(input(f, stubs.github.connectionConfig), http('github')))).toBeInstanceOf(VendorUnavailable);
  });
});

describe('hubspot:deals against the HubSpot stub', () => {
  const f = feed('hubspot:deals');
  let inWindow: string[];
  let inWindowDeals: ReturnType<VendorStubs['hubspot']['addDeals']>;

  beforeAll(() => {
    stubs.hubspot.addDeals(3, { start: '2024-02-29T23:00:00Z' });
    inWindowDeals = stubs.hubspot.addDeals(250, { start: '2024-03-01T00:00:00Z', spacingSeconds: 240 });
    inWindow = inWindowDeals.map((d) => d.id);
    stubs.hubspot.addDeals(3, { start: '2024-03-02T00:00:00Z' });
  });
  afterEach(() => stubs.hubspot.setSearchCap(10_000));

  it('pages every deal modified in the window (100 a page) from the last modification seen, keyed by id', async () => {
    const before = stubs.requests.length;
    const { records, pages, keys } = await readAll(f, stubs.hubspot.connectionConfig);
    expect(pages).toBe(3);
    // Each page restarts at the last deal's modification time, so that deal is read twice (it upserts by id).
    expect([...new Set(keys)]).toEqual(inWindow);
    expect(keys).toHaveLength(inWindow.length + 2);
    const bodies = stubs.requests.slice(before).map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.after)).toEqual([undefined, undefined, undefined]);
    const modifiedOf = (i: number) => String(Date.parse(window.startDate) + i * 240_000);
    expect(bodies.map((b) => b.filterGroups[0].filters[0].value)).toEqual([modifiedOf(0), modifiedOf(99), modifiedOf(198)]);
    expect(bodies[0].filterGroups[0].filters).toEqual([
      { propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(Date.parse(window.startDate)) },
      { propertyName: 'hs_lastmodifieddate', operator: 'LT', value: String(Date.parse(window.endDate)) },
    ]);
    expect(records[1].value).toMatchObject({
      name: `Deal ${inWindow[1]}`,
      amount: 200,
      stage: 'appointmentscheduled',
      lastModifiedAt: '2024-03-01T00:04:00.000Z',
    });
  });

  it('skips no deal when one read earlier is modified mid-sync', async () => {
    const first = await f.fetchPage(input(f, stubs.hubspot.connectionConfig), http('hubspot'));
    const moved = inWindowDeals.find((d) => d.id === first.records[0].key)!;
    const previous = moved.properties.hs_lastmodifieddate;
    moved.properties.hs_lastmodifieddate = '2024-03-01T23:59:59.000Z'; // now last in the list: every later deal slides up one place
    try {
      const keys = new Set(first.records.map((r) => r.key));
      for (let cursor = first.next; cursor !== null;) {
        const page = await f.fetchPage(input(f, stubs.hubspot.connectionConfig, cursor), http('hubspot'));
        page.records.forEach((r) => keys.add(r.key));
        cursor = page.next;
      }
      expect([...keys].sort()).toEqual([...inWindow].sort());
    } finally {
      moved.properties.hs_lastmodifieddate = previous;
    }
  });

  it('reads a millisecond holding more than a page by after, moving past it at the search result cap', async () => {
    const sameMs = stubs.hubspot.addDeals(150, { start: '2024-03-01T12:00:00.500Z', spacingSeconds: 0 }).map((d) => d.id);
    try {
      const { keys } = await readAll(f, stubs.hubspot.connectionConfig);
      expect(new Set(keys)).toEqual(new Set([...inWindow, ...sameMs]));
      stubs.hubspot.setSearchCap(100);
      const capped = await readAll(hubspotDealsFeed(100), stubs.hubspot.connectionConfig);
      // Past the cap the rest of that millisecond is skipped (documented), everything else is read.
      expect(new Set(capped.keys).size).toBe(inWindow.length + 100);
      expect(capped.keys).toEqual(expect.arrayContaining(inWindow));
    } finally {
      stubs.hubspot.removeDeals(sameMs);
    }
  });

  it('reads past the search result cap by restarting from the last modification seen', async () => {
    stubs.hubspot.setSearchCap(100);
    const capped = hubspotDealsFeed(100);
    const { keys } = await readAll(capped, stubs.hubspot.connectionConfig);
    expect([...new Set(keys)]).toEqual(inWindow);
  });

  it('maps 429 with Retry-After, 500 and a wrong token', async () => {
    stubs.failNext('hubspot', 1, { status: 429, retryAfterSeconds: 3 });
    const limited = await failure(f.fetchPage(input(f, stubs.hubspot.connectionConfig), http('hubspot')));
    expect((limited as VendorRateLimited).retryAfterMs).toBe(3000);
    stubs.failNext('hubspot', 1, { status: 500 });
    const down = await failure(f.fetchPage(input(f, stubs.hubspot.connectionConfig), http('hubspot')));
    expect(down).toBeInstanceOf(VendorUnavailable);
    expect(down.message).toBe('HubSpot answered 500: internal error');
    const rejected = await failure(f.fetchPage(input(f, { ...stubs.hubspot.connectionConfig, accessToken: 'pat-wrong' }), http('hubspot')));
    expect(rejected).toBeInstanceOf(VendorRejected);
    expect(rejected.message).toMatch(/^HubSpot answered 401: Authentication credentials not found/);
  });
});
