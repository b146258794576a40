import type http from 'node:http';
import { sendJson, type StubHandler, type StubRequest } from '../http-stub';
import { basicAuth, type FailureWriter, hex, timeline } from './vendor-server';

/**
 * Twilio's REST API 2010-04-01 as far as the `twilio:calls` feed and the
 * recording proxy use it: the Calls and Recordings list resources and
 * recording media, HTTP Basic auth (AccountSid:AuthToken), snake_case
 * resources with RFC 2822 dates, and Page/PageSize/PageToken paging through
 * `next_page_uri`. Lists are newest first, as Twilio's are. A call can be
 * deleted (`DELETE .../Calls/{sid}.json`, 204) and leaves the list.
 */

export interface TwilioCallOptions {
  /** First call's start (default: a day ago); the rest follow `spacingSeconds` apart (default 60). */
  start?: string | Date;
  spacingSeconds?: number;
  status?: string;
  direction?: string;
  durationSeconds?: number;
  /** Give each call a recording (its body names the call sid). */
  withRecording?: boolean;
  /** Calls still going: status `in-progress`, no end_time, duration or price yet (`updateCall` ends them). */
  inProgress?: boolean;
}

/** What Twilio fills in once a call ends (start_time never changes). Dates may be Dates or RFC 2822 strings. */
export interface TwilioCallUpdate {
  status?: string;
  /** Negative: charged, as a decimal string (`-0.01700`). */
  price?: string | null;
  price_unit?: string;
  end_time?: string | Date | null;
  duration?: number | string | null;
}

export interface TwilioRecordingInput {
  /** The call the recording belongs to (default: a fresh sid with no call). */
  callSid?: string;
  /** The recording's sid (default: a fresh `RE...`). */
  sid?: string;
  body: Buffer;
  /** Served for the media URL without an extension (default audio/x-wav, Twilio's default format). */
  contentType?: string;
}

interface StoredRecording {
  sid: string;
  callSid: string;
  body: Buffer;
  contentType: string;
  created: Date;
}

/** `Tue, 31 Aug 2010 20:36:28 +0000`, Twilio's date format. */
const rfc2822 = (d: Date) => d.toUTCString().replace('GMT', '+0000');

const twilioError = (res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  sendJson(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);

export const twilioFailure: FailureWriter = (answer, res) => {
  const headers: Record<string, string> = answer.retryAfterSeconds !== undefined ? { 'retry-after': String(answer.retryAfterSeconds) } : {};
  if (answer.status === 429) return twilioError(res, 429, 20429, 'Too Many Requests', headers);
  if (answer.status >= 500) return twilioError(res, answer.status, 20500, 'An internal server error has occurred', headers);
  if (answer.status === 401) return twilioError(res, 401, 20003, 'Authenticate', { 'www-authenticate': 'Basic realm="Twilio API"' });
  return twilioError(res, answer.status, 20001, 'Invalid request', headers);
};

export function createTwilioApi(baseUrl: () => string) {
  const accountSid = `AC${hex(16)}`;
  const authToken = hex(16);
  const calls: Record<string, unknown>[] = [];
  const recordings: StoredRecording[] = [];
  const root = `/2010-04-01/Accounts/${accountSid}`;

  const startOf = (call: Record<string, unknown>) => (call.start_time ? Date.parse(call.start_time as string) : NaN);

  function addCalls(n: number, opts: TwilioCallOptions = {}): Record<string, unknown>[] {
    const added = Array.from({ length: n }, (_, i) => {
      const sid = `CA${hex(16)}`;
      const start = timeline(opts, i);
      const status = opts.inProgress ? 'in-progress' : (opts.status ?? 'completed');
      const duration = status === 'completed' ? (opts.durationSeconds ?? 30 + (i % 90)) : 0;
      const end = new Date(start.getTime() + duration * 1000);
      const ended = !opts.inProgress;
      const call = {
        account_sid: accountSid,
        annotation: null,
        answered_by: null,
        api_version: '2010-04-01',
        caller_name: null,
        date_created: rfc2822(new Date(start.getTime() - 2000)),
        date_updated: rfc2822(ended ? end : start),
        direction: opts.direction ?? (i % 2 ? 'outbound-api' : 'inbound'),
        duration: ended ? String(duration) : null,
        end_time: ended ? rfc2822(end) : null,
        forwarded_from: null,
        from: `+1555010${String(i % 10_000).padStart(4, '0')}`,
        from_formatted: `(555) 010-${String(i % 10_000).padStart(4, '0')}`,
        group_sid: null,
        parent_call_sid: null,
        phone_number_sid: `PN${hex(16)}`,
        price: status === 'completed' ? `-${(0.0085 * Math.ceil(duration / 60)).toFixed(5)}` : null,
        price_unit: 'USD',
        queue_time: '0',
        sid,
        start_time: rfc2822(start),
        status,
        subresource_uris: {
          notifications: `${root}/Calls/${sid}/Notifications.json`,
          recordings: `${root}/Calls/${sid}/Recordings.json`,
          events: `${root}/Calls/${sid}/Events.json`,
        },
        to: '+15550999999',
        to_formatted: '(555) 099-9999',
        trunk_sid: null,
        uri: `${root}/Calls/${sid}.json`,
      };
      calls.push(call);
      if (opts.withRecording) addRecording({ callSid: sid, body: Buffer.from(`RIFF fake wav of ${sid}`), contentType: 'audio/x-wav' });
      return call;
    });
    return added;
  }

  /** Fills in what Twilio sets after a call ends (price, final status, end), as Twilio does: start_time stays. */
  function updateCall(sid: string, patch: TwilioCallUpdate): Record<string, unknown> {
    const call = calls.find((c) => c.sid === sid);
    if (!call) throw new Error(`Twilio stub: no call ${sid}`);
    const { end_time, duration, ...rest } = patch;
    Object.assign(call, rest, { date_updated: rfc2822(new Date()) });
    if (end_time !== undefined) call.end_time = end_time === null ? null : rfc2822(new Date(end_time));
    if (duration !== undefined) call.duration = duration === null ? null : String(duration);
    return call;
  }

  /** Deletes these calls from the log (their recordings stay, as on Twilio). */
  function deleteCalls(sids: string[]) {
    for (let i = calls.length - 1; i >= 0; i--) if (sids.includes(calls[i].sid as string)) calls.splice(i, 1);
  }

  function addRecording(input: TwilioRecordingInput): { sid: string } {
    const call = calls.find((c) => c.sid === input.callSid);
    const created = call ? new Date(startOf(call) + 1000) : new Date();
    const sid = input.sid ?? `RE${hex(16)}`;
    recordings.push({ sid, callSid: input.callSid ?? `CA${hex(16)}`, body: input.body, contentType: input.contentType ?? 'audio/x-wav', created });
    return { sid };
  }

  const recordingResource = (r: StoredRecording) => ({
    account_sid: accountSid,
    api_version: '2010-04-01',
    call_sid: r.callSid,
    conference_sid: null,
    date_created: rfc2822(r.created),
    date_updated: rfc2822(r.created),
    start_time: rfc2822(r.created),
    duration: '4',
    sid: r.sid,
    price: '-0.00250',
    price_unit: 'USD',
    status: 'completed',
    channels: 1,
    source: 'OutboundAPI',
    error_code: null,
    uri: `${root}/Recordings/${r.sid}.json`,
    encryption_details: null,
    subresource_uris: { add_on_results: `${root}/Recordings/${r.sid}/AddOnResults.json`, transcriptions: `${root}/Recordings/${r.sid}/Transcriptions.json` },
    media_url: `${baseUrl()}${root}/Recordings/${r.sid}`,
  });

  const route: StubHandler = (req, res) => {
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/(.+)$/.exec(req.path);
    if (!match) return twilioError(res, 404, 20404, `The requested resource ${req.path} was not found`);
    const creds = basicAuth(req);
    if (!creds || creds[0] !== accountSid || creds[1] !== authToken || match[1] !== accountSid) {
      return twilioError(res, 401, 20003, 'Authenticate', { 'www-authenticate': 'Basic realm="Twilio API"' });
    }
    const rest = match[2];
    if (rest === 'Calls.json' && req.method === 'GET') return list(req, res, 'calls', filterCalls(req));
    const callResource = /^Calls\/([^/.]+)\.json$/.exec(rest);
    if (callResource && req.method === 'DELETE' && calls.some((c) => c.sid === callResource[1])) {
      deleteCalls([callResource[1]]);
      return res.writeHead(204).end();
    }
    if (rest === 'Recordings.json' && req.method === 'GET') return list(req, res, 'recordings', filterRecordings(req).map(recordingResource));
    const media = /^Recordings\/([^/.]+)(\.mp3|\.wav|\.json)?$/.exec(rest);
    const recording = media && recordings.find((r) => r.sid === media[1]);
    if (recording && (req.method === 'GET' || req.method === 'HEAD')) {
      if (media[2] === '.json') return sendJson(res, 200, recordingResource(recording));
      const type = media[2] === '.mp3' ? 'audio/mpeg' : media[2] === '.wav' ? 'audio/x-wav' : recording.contentType;
      return serveMedia(req, res, recording.body, type);
    }
    return twilioError(res, 404, 20404, `The requested resource ${req.path} was not found`);
  };

  /** Twilio's date filters: `X>` on or after, `X<` on or before; a bare date (YYYY-MM-DD) covers its whole UTC day. Parsed once per request. */
  function dateFilter(req: StubRequest, name: string): (at: number) => boolean {
    const bound = (value: string | undefined, upper: boolean) => {
      if (value === undefined) return undefined;
      const t = Date.parse(value);
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && upper ? t + 86_399_999 : t;
    };
    const after = bound(req.query[`${name}>`], false);
    const before = bound(req.query[`${name}<`], true);
    const on = req.query[name];
    return (at) => {
      if (Number.isNaN(at)) return after === undefined && before === undefined && on === undefined;
      if (after !== undefined && at < after) return false;
      if (before !== undefined && at > before) return false;
      if (on !== undefined && new Date(at).toISOString().slice(0, 10) !== on.slice(0, 10)) return false;
      return true;
    };
  }

  // Each call's start is parsed once per request: a benchmark's 20,000 calls are listed hundreds of times.
  const filterCalls = (req: StubRequest) => {
    const inWindow = dateFilter(req, 'StartTime');
    return calls
      .map((c) => ({ c, at: startOf(c) }))
      .filter(({ c, at }) => inWindow(at) && (req.query.Status ? c.status === req.query.Status : true))
      .sort((a, b) => b.at - a.at)
      .map(({ c }) => c);
  };

  const filterRecordings = (req: StubRequest) => {
    const created = dateFilter(req, 'DateCreated');
    return recordings
      .filter((r) => created(r.created.getTime()) && (req.query.CallSid ? r.callSid === req.query.CallSid : true))
      .sort((a, b) => b.created.getTime() - a.created.getTime());
  };

  function list(req: StubRequest, res: http.ServerResponse, key: string, items: Record<string, unknown>[]) {
    const pageSize = Number(req.query.PageSize ?? 50);
    const page = Number(req.query.Page ?? 0);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000 || !Number.isInteger(page) || page < 0) {
      return twilioError(res, 400, 20001, 'Invalid PageSize or Page');
    }
    const slice = items.slice(page * pageSize, (page + 1) * pageSize);
    const params = Object.entries(req.query).filter(([k]) => !['Page', 'PageSize', 'PageToken'].includes(k));
    const uri = (p: number, token?: string) => {
      const paging: [string, string][] = [['PageSize', String(pageSize)], ['Page', String(p)], ...(token ? [['PageToken', token] as [string, string]] : [])];
      return `${req.path}?${new URLSearchParams([...params, ...paging])}`;
    };
    const more = (page + 1) * pageSize < items.length;
    sendJson(res, 200, {
      [key]: slice,
      end: page * pageSize + Math.max(slice.length - 1, 0),
      first_page_uri: uri(0),
      next_page_uri: more ? uri(page + 1, `PA${slice[slice.length - 1].sid as string}`) : null,
      page,
      page_size: pageSize,
      previous_page_uri: page > 0 ? uri(page - 1, `PB${slice[0]?.sid ?? ''}`) : null,
      start: page * pageSize,
      uri: uri(page),
    });
  }

  return { accountSid, authToken, route, addCalls, updateCall, deleteCalls, addRecording, calls, recordings };
}

/** The bytes, honouring one `Range: bytes=a-b` / `a-` / `-n` with 206 (416 when unsatisfiable). */
function serveMedia(req: StubRequest, res: http.ServerResponse, body: Buffer, contentType: string) {
  const base = { 'content-type': contentType, 'accept-ranges': 'bytes' };
  const head = req.method === 'HEAD';
  const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? '').trim());
  if (!req.headers.range || !range || (range[1] === '' && range[2] === '')) {
    res.writeHead(200, { ...base, 'content-length': String(body.length) });
    return res.end(head ? undefined : body);
  }
  let start: number;
  let end: number;
  if (range[1] === '') {
    start = Math.max(body.length - Number(range[2]), 0);
    end = body.length - 1;
  } else {
    start = Number(range[1]);
    end = range[2] === '' ? body.length - 1 : Math.min(Number(range[2]), body.length - 1);
  }
  if (start >= body.length || start > end || (range[1] === '' && Number(range[2]) === 0)) {
    res.writeHead(416, { ...base, 'content-range': `bytes */${body.length}` });
    return res.end();
  }
  const part = body.subarray(start, end + 1);
  res.writeHead(206, { ...base, 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': String(part.length) });
  return res.end(head ? undefined : part);
}
