import type { FeedRequest, FeedResponse } from '../feed-definition';
import { VendorRejected, VendorUnavailable } from '../vendor-errors';
import { RECORDING_LISTING_DELAY_MS, twilioCalls } from './twilio-calls';

/** Nothing stored yet. */
const stored = async () => new Map<string, Record<string, unknown>>();

const BASE = 'https://twilio.test';
const SID = `AC${'a'.repeat(32)}`;
const config = { accountSid: SID, authToken: 'tok3n' };
const window = { startDate: '2024-01-01T00:00:00.500Z', endDate: '2024-01-02T00:00:00.250Z' };
const AUTH = `Basic ${Buffer.from(`${SID}:tok3n`).toString('base64')}`;

const call = (sid: string, start: string, extra: Record<string, unknown> = {}) => ({
  sid,
  from: '+15550100001',
  to: '+15550999999',
  status: 'completed',
  direction: 'inbound',
  duration: '42',
  price: '-0.00850',
  price_unit: 'USD',
  start_time: start,
  end_time: 'Mon, 01 Jan 2024 10:00:42 +0000',
  ...extra,
});

/** A fake FeedHttp: answers by URL, keeping every request. */
function fakeHttp(answer: (req: FeedRequest) => unknown) {
  const sent: FeedRequest[] = [];
  return { sent, send: async (req: FeedRequest): Promise<FeedResponse> => (sent.push(req), { status: 200, headers: {}, body: answer(req) }) };
}

describe('twilio:calls', () => {
  it("asks for the window with Basic auth, keeps calls inside it, and references each completed call's first recording", async () => {
    const http = fakeHttp((req) => {
      if (req.url.includes('/Calls.json')) {
        return {
          calls: [
            call('CA1', 'Mon, 01 Jan 2024 10:00:00 +0000'),
            call('CA2', 'Mon, 01 Jan 2024 11:00:00 +0000', { status: 'no-answer', duration: '0', price: null }),
            call('CA3', 'Mon, 01 Jan 2024 12:00:00 +0000'),
            call('CAearly', 'Mon, 01 Jan 2024 00:00:00 +0000'),
            call('CAlate', 'Tue, 02 Jan 2024 00:00:01 +0000'),
          ],
          next_page_uri: `/2010-04-01/Accounts/${SID}/Calls.json?PageSize=50&Page=1&PageToken=PACA3`,
        };
      }
      const callSid = new URL(req.url).searchParams.get('CallSid');
      if (callSid === 'CA1') {
        return {
          recordings: [
            { sid: 'RElater', call_sid: 'CA1', date_created: 'Mon, 01 Jan 2024 10:00:30 +0000' },
            { sid: 'REfirst', call_sid: 'CA1', date_created: 'Mon, 01 Jan 2024 10:00:01 +0000' },
            { sid: 'REother', call_sid: 'CA9', date_created: 'Mon, 01 Jan 2024 09:00:00 +0000' },
          ],
        };
      }
      return { recordings: [] };
    });

    const page = await twilioCalls.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);

    expect(http.sent[0]).toEqual({
      method: 'GET',
      url: `${BASE}/2010-04-01/Accounts/${SID}/Calls.json?StartTime%3E=2024-01-01T00%3A00%3A00Z&StartTime%3C=2024-01-02T00%3A00%3A01Z&PageSize=50`,
      headers: { authorization: AUTH, accept: 'application/json' },
    });
    // Only completed calls in the window are asked about (CA2 never connected).
    expect(
      http.sent
        .slice(1)
        .map((r) => r.url)
        .sort(),
    ).toEqual(['CA1', 'CA3'].map((c) => `${BASE}/2010-04-01/Accounts/${SID}/Recordings.json?CallSid=${c}&PageSize=20`));
    expect(http.sent.slice(1).every((r) => r.headers.authorization === AUTH)).toBe(true);
    expect(page.records.map((r) => r.key)).toEqual(['CA1', 'CA2', 'CA3']);
    expect(page.records[0].value).toEqual({
      callSid: 'CA1',
      from: '+15550100001',
      to: '+15550999999',
      status: 'completed',
      direction: 'inbound',
      duration: 42,
      price: -0.0085,
      priceUnit: 'USD',
      startTime: '2024-01-01T10:00:00.000Z',
      endTime: '2024-01-01T10:00:42.000Z',
      recording: 'proxy+twilio:recording://REfirst',
    });
    expect(page.records[1].value).toMatchObject({ status: 'no-answer', duration: 0, price: null, recording: null });
    expect(page.records[2].value.recording).toBeNull();
    expect(page.next).toBe(`/2010-04-01/Accounts/${SID}/Calls.json?PageSize=50&Page=1&PageToken=PACA3`);
  });

  it('follows the cursor on the configured base and ends when next_page_uri is null', async () => {
    const cursor = `/2010-04-01/Accounts/${SID}/Calls.json?PageSize=50&Page=1&PageToken=PACA3`;
    const http = fakeHttp(() => ({ calls: [], next_page_uri: null }));
    const page = await twilioCalls.fetchPage({ baseUrl: BASE, config, window, cursor, stored }, http);
    expect(http.sent.map((r) => r.url)).toEqual([`${BASE}${cursor}`]);
    expect(page).toEqual({ records: [], next: null });
  });

  it("refuses a cursor outside the account's Calls list", async () => {
    const http = fakeHttp(() => ({ calls: [] }));
    const cursor = '/2010-04-01/Accounts/ACother/Calls.json?Page=1';
    await expect(twilioCalls.fetchPage({ baseUrl: BASE, config, window, cursor, stored }, http)).rejects.toBeInstanceOf(VendorRejected);
    await expect(twilioCalls.fetchPage({ baseUrl: BASE, config, window, cursor: '//evil.test/x', stored }, http)).rejects.toBeInstanceOf(VendorRejected);
    expect(http.sent).toHaveLength(0);
  });

  it('asks to reconnect when the connection lacks its auth token, without a request', async () => {
    const http = fakeHttp(() => ({}));
    const err = await twilioCalls.fetchPage({ baseUrl: BASE, config: { accountSid: SID }, window, cursor: null, stored }, http).catch((e: Error) => e);
    expect(err).toBeInstanceOf(VendorRejected);
    expect((err as Error).message).toMatch(/no auth token: reconnect/);
    expect(http.sent).toHaveLength(0);
  });

  it('treats an answer without a calls array as the vendor being unavailable', async () => {
    const http = fakeHttp(() => '<html>maintenance</html>');
    await expect(twilioCalls.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http)).rejects.toBeInstanceOf(VendorUnavailable);
  });
});

describe('twilio:calls recording look-ups against stored values', () => {
  const now = Date.now();
  const rfc = (ms: number) => new Date(ms).toUTCString().replace('GMT', '+0000');
  const around = { startDate: new Date(now - 86_400_000).toISOString(), endDate: new Date(now + 3_600_000).toISOString() };
  const ended = (sid: string, agoMs: number, extra: Record<string, unknown> = {}) =>
    call(sid, rfc(now - agoMs - 60_000), { end_time: rfc(now - agoMs), ...extra });
  const kept = 'proxy+twilio:recording://REkept';
  const storedValues = new Map<string, Record<string, unknown>>([
    ['CAhas', { status: 'completed', recording: kept }],
    ['CAwasLive', { status: 'in-progress', recording: null }],
    ['CArecent', { status: 'completed', recording: null }],
    ['CAold', { status: 'completed', recording: null }],
    ['CAlive', { status: 'in-progress', recording: null }],
  ]);

  it('asks only for calls whose recording may be news, and keeps stored references without asking', async () => {
    const asked: string[][] = [];
    const lookup = async (keys: string[]) => (asked.push(keys), new Map([...storedValues].filter(([k]) => keys.includes(k))));
    const http = fakeHttp((req) => {
      if (req.url.includes('/Calls.json')) {
        return {
          calls: [
            ended('CAnew', 10 * 60_000),
            ended('CAhas', 10 * 60_000),
            ended('CAwasLive', 3 * 3_600_000),
            ended('CArecent', RECORDING_LISTING_DELAY_MS - 60_000),
            ended('CAold', RECORDING_LISTING_DELAY_MS + 60_000),
            call('CAlive', rfc(now - 60_000), { status: 'in-progress', end_time: null, price: null }),
            ended('CAmissed', 60_000, { status: 'no-answer' }),
          ],
        };
      }
      const sid = new URL(req.url).searchParams.get('CallSid')!;
      return { recordings: [{ sid: `RE${sid}`, call_sid: sid, date_created: rfc(now) }] };
    });
    const page = await twilioCalls.fetchPage({ baseUrl: BASE, config, window: around, cursor: null, stored: lookup }, http);
    expect(asked).toEqual([['CAnew', 'CAhas', 'CAwasLive', 'CArecent', 'CAold', 'CAlive', 'CAmissed']]);
    const lookedUp = http.sent.slice(1).map((r) => new URL(r.url).searchParams.get('CallSid'));
    expect(lookedUp.sort()).toEqual(['CAnew', 'CArecent', 'CAwasLive']);
    expect(Object.fromEntries(page.records.map((r) => [r.key, r.value.recording]))).toEqual({
      CAnew: 'proxy+twilio:recording://RECAnew',
      CAhas: kept,
      CAwasLive: 'proxy+twilio:recording://RECAwasLive',
      CArecent: 'proxy+twilio:recording://RECArecent',
      CAold: null,
      CAlive: null,
      CAmissed: null,
    });
  });

  it('does not ask for stored values of an empty page', async () => {
    const lookup = jest.fn(stored);
    await twilioCalls.fetchPage(
      { baseUrl: BASE, config, window, cursor: null, stored: lookup },
      fakeHttp(() => ({ calls: [] })),
    );
    expect(lookup).not.toHaveBeenCalled();
  });

  it('re-reads the last 24 hours and mirrors deletions by listing, reconciling 30 days', () => {
    expect(twilioCalls.lookbackMinutes).toBe(1440);
    expect(twilioCalls.deletions).toEqual({ kind: 'listing', reconcileWindowDays: 30 });
  });
});
