import type { FeedDefinition, FeedHttp, FeedRecord } from '../feed-definition';
import { unexpectedShape } from '../vendor-errors';
import { checkedCursor, credential, foreignCursor, isoDate, isoSeconds, numberOrNull, stringOrNull, windowMs } from './feed-values';

export const TWILIO_CALLS_PAGE_SIZE = 50;
/** A call can be recorded more than once; the feed references the first recording, found among this many. */
const RECORDINGS_PER_CALL = 20;
/** Recording look-ups of one page in flight at once (Twilio limits concurrent requests per account). */
const RECORDING_CONCURRENCY = 4;
/** A recording can be listed a little after its call completes: a call stored without one is asked about again until this long after its end. */
export const RECORDING_LISTING_DELAY_MS = 60 * 60_000;
const RECORDING_PREFIX = 'proxy+twilio:recording://';

// Recording sids go into `proxy+twilio:recording://<sid>` references, so only plain ones are taken.
const SID = /^[A-Za-z0-9]{2,64}$/;

type TwilioCall = Record<string, unknown> & { sid: string };

/**
 * Twilio's call log: `GET /2010-04-01/Accounts/{sid}/Calls.json` with
 * `StartTime>` / `StartTime<` (Twilio's on-or-after / on-or-before filters;
 * the exact half-open window is applied to `start_time` here), paged by
 * `next_page_uri`. Each answered call's recording comes from the
 * Recordings list filtered by `CallSid`, asked only while the answer may
 * still be news (`needsLookup`): the look-back re-reads every call of the
 * last day on each sync, and one request per completed call each time would
 * multiply the requests by the number of syncs a day.
 */
export const twilioCalls: FeedDefinition = {
  key: 'twilio:calls',
  vendor: 'twilio',
  connectionType: 'twilio',
  title: 'Twilio calls',
  recordSchema: {
    name: 'Twilio calls',
    fields: {
      callSid: { type: 'string', label: 'Call SID' },
      from: { type: 'string', label: 'From' },
      to: { type: 'string', label: 'To' },
      status: { type: 'string', label: 'Status' },
      direction: { type: 'string', label: 'Direction' },
      duration: { type: 'number', label: 'Duration (seconds)', measure: true },
      price: { type: 'number', label: 'Price (negative: charged)', measure: true },
      priceUnit: { type: 'string', label: 'Price currency' },
      startTime: { type: 'date', label: 'Start time', timeDimension: true },
      endTime: { type: 'date', label: 'End time' },
      recording: { type: 'string', label: 'Recording' },
    },
  },
  // Twilio fills in a call's price and final status after it ends, sometimes hours later, and a call may last up to 4 hours.
  lookbackMinutes: 1440,
  // A call's start_time never changes, so a complete listing of a window shows every call still there. The reconciled
  // window is bounded: Twilio's own call log drops calls after 13 months, and a full listing costs one request per page.
  deletions: { kind: 'listing', reconcileWindowDays: 30 },

  async fetchPage({ baseUrl, config, window, cursor, stored }, http) {
    const accountSid = credential('twilio', config, 'accountSid', 'account SID');
    const authToken = credential('twilio', config, 'authToken', 'auth token');
    const { start, end } = windowMs('twilio', window);
    const root = `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}`;
    const headers = { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`, accept: 'application/json' };
    if (cursor !== null && !cursor.startsWith(`${root}/Calls.json?`)) throw foreignCursor('twilio');
    const query = new URLSearchParams({ 'StartTime>': isoSeconds(start), 'StartTime<': isoSeconds(end, true), PageSize: String(TWILIO_CALLS_PAGE_SIZE) });
    const res = await http.send({ method: 'GET', url: `${baseUrl}${cursor ?? `${root}/Calls.json?${query}`}`, headers });
    const body = res.body as { calls?: unknown; next_page_uri?: unknown } | null;
    if (!body || !Array.isArray(body.calls)) throw unexpectedShape('twilio', 'the Calls list has no "calls" array');
    const calls = (body.calls as TwilioCall[]).filter((c) => {
      const at = Date.parse(String(c?.start_time));
      return typeof c?.sid === 'string' && at >= start && at < end;
    });
    const before = calls.length ? await stored(calls.map((c) => c.sid)) : new Map<string, Record<string, unknown>>();
    const now = Date.now();
    const lookups = calls.filter((c) => needsLookup(c, before.get(c.sid), now));
    const recordings = await firstRecordings(lookups, { baseUrl, root, headers }, http);
    const recording = (c: TwilioCall) => storedRecording(before.get(c.sid)) ?? recordings.get(c.sid) ?? null;
    const records: FeedRecord[] = calls.map((c) => ({ key: c.sid, value: callValue(c, recording(c)) }));
    const next = typeof body.next_page_uri === 'string' && body.next_page_uri !== '' ? body.next_page_uri : null;
    return { records, next: checkedCursor('twilio', next) };
  },
};

/** The recording reference a stored call already holds, kept without asking again. */
function storedRecording(value: Record<string, unknown> | undefined): string | null {
  const ref = value?.recording;
  return typeof ref === 'string' && ref.startsWith(RECORDING_PREFIX) ? ref : null;
}

/**
 * Whether to ask Twilio for a completed call's recording: never stored, or
 * stored without one while it may yet appear (the stored call had not
 * completed, or it ended less than RECORDING_LISTING_DELAY_MS ago, or its
 * end is unknown). Calls that were never answered have none, so are not
 * asked about.
 */
function needsLookup(c: TwilioCall, before: Record<string, unknown> | undefined, now: number): boolean {
  if (c.status !== 'completed') return false;
  if (!before) return true;
  if (storedRecording(before) !== null) return false;
  const ended = Date.parse(String(c.end_time));
  return before.status !== 'completed' || Number.isNaN(ended) || now - ended < RECORDING_LISTING_DELAY_MS;
}

function callValue(c: TwilioCall, recording: string | null): Record<string, unknown> {
  return {
    callSid: c.sid,
    from: stringOrNull(c.from),
    to: stringOrNull(c.to),
    status: stringOrNull(c.status),
    direction: stringOrNull(c.direction),
    duration: numberOrNull(c.duration),
    price: numberOrNull(c.price),
    priceUnit: stringOrNull(c.price_unit),
    startTime: isoDate(c.start_time),
    endTime: isoDate(c.end_time),
    recording,
  };
}

/** Each call's earliest recording, as a reference the proxy serves. */
async function firstRecordings(
  calls: TwilioCall[],
  at: { baseUrl: string; root: string; headers: Record<string, string> },
  http: FeedHttp,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const queue = [...calls];
  const worker = async () => {
    for (let call = queue.shift(); call; call = queue.shift()) {
      const query = new URLSearchParams({ CallSid: call.sid, PageSize: String(RECORDINGS_PER_CALL) });
      const res = await http.send({ method: 'GET', url: `${at.baseUrl}${at.root}/Recordings.json?${query}`, headers: at.headers });
      const list = (res.body as { recordings?: unknown } | null)?.recordings;
      if (!Array.isArray(list)) throw unexpectedShape('twilio', 'the Recordings list has no "recordings" array');
      const mine = (list as Record<string, unknown>[]).filter((r) => r?.call_sid === call!.sid && typeof r.sid === 'string' && SID.test(r.sid));
      mine.sort((a, b) => Date.parse(String(a.date_created)) - Date.parse(String(b.date_created)));
      if (mine.length) found.set(call.sid, `${RECORDING_PREFIX}${mine[0].sid as string}`);
    }
  };
  // The first failure empties the queue, so the other workers stop sending.
  const guarded = () => worker().catch((err: unknown) => ((queue.length = 0), Promise.reject(err)));
  await Promise.all(Array.from({ length: RECORDING_CONCURRENCY }, guarded));
  return found;
}
