import { createGithubApi, githubFailure, type GithubIssueOptions } from './vendors/github-stub';
import { createHubspotApi, type HubspotDealOptions, hubspotFailure } from './vendors/hubspot-stub';
import { createTwilioApi, type TwilioCallOptions, type TwilioCallUpdate, type TwilioRecordingInput, twilioFailure } from './vendors/twilio-stub';
import { type FailAnswer, startVendorServer, type VendorName, type VendorRequest } from './vendors/vendor-server';

export type { FailAnswer, GithubIssueOptions, HubspotDealOptions, TwilioCallOptions, TwilioCallUpdate, TwilioRecordingInput, VendorName, VendorRequest };

/** Which bearer tokens a stub accepts; null restores its fixed `accessToken`. */
export type TokenCheck = ((token: string) => boolean) | null;

/**
 * Local stand-ins for the Twilio, GitHub and HubSpot APIs the data feeds and
 * the proxy call, each on its own 127.0.0.1 port, speaking the vendor's real
 * paths, auth, pagination, field names and error bodies:
 *
 * - Twilio (`urls.twilio`): Basic auth `accountSid:authToken`, else 401
 *   `{code: 20003, message: 'Authenticate', more_info, status}`.
 *   `GET /2010-04-01/Accounts/{sid}/Calls.json` with `StartTime>` / `StartTime<`
 *   (on or after / on or before; ISO date-times, or a bare date for a whole
 *   UTC day), `Status`, `PageSize` (default 50), `Page`, answering
 *   `{calls, next_page_uri, page, page_size, ...}` newest first.
 *   `DELETE .../Calls/{sid}.json` answers 204 and the call leaves the list.
 *   `GET .../Recordings.json` with `CallSid`, `DateCreated>`/`<`, same paging.
 *   Media: `GET|HEAD .../Recordings/{sid}` (the content type given to
 *   `addRecording`), `.mp3` (audio/mpeg), `.wav` (audio/x-wav), `.json`
 *   (the resource); one `Range: bytes=a-b|a-|-n` gives 206 + Content-Range,
 *   unsatisfiable 416 with `bytes *\/len`; unknown sids 404 `{code: 20404, ...}`.
 * - GitHub (`urls.github`): first, like api.github.com, a request without a
 *   `User-Agent` header is 403 `text/plain` "Request forbidden by
 *   administrative rules...". Then `Authorization: Bearer|token <accessToken>`
 *   (or what `setTokenCheck` accepts), else 401 `{message: 'Bad credentials', ...}`.
 *   `GET /issues` with filter, state (default open), since (updated at or
 *   after), sort, direction, per_page (default 30, max 100), page, paged by a
 *   `Link` header of absolute URLs on `urls.github`; issue objects with
 *   `repository`, and `pull_request` for PRs. `POST /graphql` answers only
 *   `query($ids: [ID!]!) { nodes(ids: $ids) { id } }` (at most 100 ids):
 *   a node per live issue, null plus a NOT_FOUND error at `['nodes', i]`
 *   for the rest; any other query gets GitHub's GraphQL `{errors}` shape.
 * - HubSpot (`urls.hubspot`): `Authorization: Bearer <accessToken>` (or what
 *   `setTokenCheck` accepts), else 401 `{status: 'error', category:
 *   'INVALID_AUTHENTICATION', ...}`. `POST /crm/v3/objects/deals/search` (see
 *   hubspot-stub.ts), paged by `paging.next.after`, 400 past the result cap
 *   (`hubspot.setSearchCap`); archived deals are not found. `POST
 *   /crm/v3/objects/deals/batch/read` (max 100 inputs, else 400): 200 when
 *   every id is found, else 207 with an OBJECT_NOT_FOUND error listing the
 *   rest in `context.ids`. `GET /crm/v3/objects/deals?archived=true` lists
 *   archived deals, paged by `after`.
 *
 * `addCalls` / `addIssues` / `addDeals` create n records whose time field
 * (start_time, updated_at, hs_lastmodifieddate) starts at `opts.start`
 * (default: a day ago) and steps `opts.spacingSeconds` (default 60); they
 * return the vendor's JSON objects; `updateCall` / `updateIssue`, and
 * `deleteCalls` / `deleteIssues` / `archiveDeals` / `removeDeals`, change them
 * as the vendor would. `failNext` queues forced answers in the
 * vendor's error shape (status 0 drops the connection; GitHub 403 with
 * `retryAfterSeconds` is its primary rate limit: `x-ratelimit-remaining: 0` +
 * `x-ratelimit-reset`, no Retry-After). `setDelay` holds every answer.
 */
export interface VendorStubs {
  /** Base URLs for config.vendors.baseUrls. */
  urls: { twilio: string; github: string; hubspot: string };
  /** Entries for config.steps.httpAllowList. */
  allowList: string[];
  twilio: {
    accountSid: string;
    authToken: string;
    /** The config of a `twilio` connection that authenticates. */
    connectionConfig: { accountSid: string; authToken: string };
    addCalls(n: number, opts?: TwilioCallOptions): Record<string, any>[];
    /** Fills in what Twilio sets once a call ends (price, status, end_time, duration); start_time never changes. */
    updateCall(sid: string, patch: TwilioCallUpdate): Record<string, any>;
    /** Deletes these calls (the Calls list no longer shows them; their recordings stay). */
    deleteCalls(sids: string[]): void;
    addRecording(input: TwilioRecordingInput): { sid: string };
  };
  github: {
    accessToken: string;
    /** The config of a `github-oauth` connection that authenticates. */
    connectionConfig: Record<string, string>;
    addIssues(n: number, opts?: GithubIssueOptions): Record<string, any>[];
    /** Applies the patch to the issue with this node_id and moves its updated_at to now. */
    updateIssue(nodeId: string, patch: Record<string, unknown>): Record<string, any>;
    /** Deletes these issues: gone from /issues, and nodes() answers null + NOT_FOUND for them. */
    deleteIssues(nodeIds: string[]): void;
    /** Which bearer tokens authenticate, e.g. those an OAuth token-endpoint stub issued. */
    setTokenCheck(check: TokenCheck): void;
  };
  hubspot: {
    accessToken: string;
    /** The config of a `hubspot-oauth` connection that authenticates. */
    connectionConfig: Record<string, string>;
    addDeals(
      n: number,
      opts?: HubspotDealOptions,
    ): { id: string; properties: Record<string, string | null>; createdAt: string; updatedAt: string; archived: boolean }[];
    /** Archives these deals (HubSpot's delete): search and batch read with archived:false no longer find them; the archived list does. */
    archiveDeals(ids: string[]): void;
    /** Removes these deals for good (purged, or a GDPR delete): found nowhere, not even archived. */
    removeDeals(ids: string[]): void;
    /** Which bearer tokens authenticate, e.g. those an OAuth token-endpoint stub issued. */
    setTokenCheck(check: TokenCheck): void;
    /** Lowers HubSpot's 10,000-result search cap (paging past it is 400). */
    setSearchCap(n: number): void;
  };
  /** The next n requests to that vendor answer with this status (429 with Retry-After seconds when given). */
  failNext(vendor: VendorName, n: number, answer: FailAnswer): void;
  /** Every request received (method, path, query, headers, body, vendor), in order. */
  requests: VendorRequest[];
  /** Each answer waits this long (to catch a sync mid-way); 0 to stop, which also sends the answers held now. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

const oauthConfig = (accessToken: string) => ({
  clientId: 'stub-client',
  clientSecret: 'stub-client-secret',
  accessToken,
  refreshToken: 'stub-refresh-token',
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
});

/** Starts the three vendor stubs; close() stops them all. */
export async function startVendorStubs(): Promise<VendorStubs> {
  const requests: VendorRequest[] = [];
  let delay = 0;
  const shared = { requests, delayMs: () => delay, held: new Set<() => void>() };
  const urls = { twilio: '', github: '', hubspot: '' };
  const twilio = createTwilioApi(() => urls.twilio);
  const github = createGithubApi(() => urls.github);
  const hubspot = createHubspotApi();
  const servers = {
    twilio: await startVendorServer('twilio', shared, twilio.route, twilioFailure),
    github: await startVendorServer('github', shared, github.route, githubFailure),
    hubspot: await startVendorServer('hubspot', shared, hubspot.route, hubspotFailure),
  };
  urls.twilio = servers.twilio.stub.url;
  urls.github = servers.github.stub.url;
  urls.hubspot = servers.hubspot.stub.url;
  return {
    urls,
    allowList: Object.values(servers).map((s) => s.stub.host),
    twilio: {
      accountSid: twilio.accountSid,
      authToken: twilio.authToken,
      connectionConfig: { accountSid: twilio.accountSid, authToken: twilio.authToken },
      addCalls: twilio.addCalls,
      updateCall: twilio.updateCall,
      deleteCalls: twilio.deleteCalls,
      addRecording: twilio.addRecording,
    },
    github: {
      accessToken: github.accessToken,
      connectionConfig: oauthConfig(github.accessToken),
      addIssues: github.addIssues,
      updateIssue: github.updateIssue,
      deleteIssues: github.deleteIssues,
      setTokenCheck: github.setTokenCheck,
    },
    hubspot: {
      accessToken: hubspot.accessToken,
      connectionConfig: { ...oauthConfig(hubspot.accessToken), portalId: '12345' },
      addDeals: hubspot.addDeals,
      archiveDeals: hubspot.archiveDeals,
      removeDeals: hubspot.removeDeals,
      setSearchCap: hubspot.setSearchCap,
      setTokenCheck: hubspot.setTokenCheck,
    },
    failNext: (vendor, n, answer) => servers[vendor].failNext(n, answer),
    requests,
    setDelay: (ms) => {
      delay = ms;
      // A test done with its held answers does not wait out their delay.
      if (ms === 0) for (const release of [...shared.held]) release();
    },
    close: async () => {
      await Promise.all(Object.values(servers).map((s) => s.stub.close()));
    },
  };
}
