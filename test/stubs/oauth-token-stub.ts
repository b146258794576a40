import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startHttpStub, type StubRequest } from './http-stub';

/**
 * The token endpoints of GitHub and HubSpot as far as refreshing an access
 * token goes (grant_type=refresh_token, form-encoded), with each vendor's
 * answers:
 * - GitHub, `POST /login/oauth/access_token`: tokens as JSON when asked with
 *   `Accept: application/json` (else form-encoded), and every error with
 *   HTTP 200 and `{error, error_description, error_uri}`;
 * - HubSpot, `POST /oauth/v1/token`: tokens as JSON, errors 400
 *   `{status: 'BAD_REFRESH_TOKEN' | 'BAD_CLIENT_ID' | ..., message, correlationId}`.
 * Access tokens live `lifetimeSeconds`; a used refresh token stops working
 * when the grant rotates them (GitHub does, HubSpot keeps one). `accepts`
 * tells a vendor API stub whether a bearer token is one issued and unexpired.
 */

export type TokenVendor = 'github' | 'hubspot';

export interface GrantOptions {
  /** Lifetime of the access tokens refreshes issue (default: the vendor's, GitHub 8 h, HubSpot 30 min). */
  lifetimeSeconds?: number;
  /** Lifetime of the first access token, the one `config` holds (default lifetimeSeconds); 60 makes it due for a refresh. */
  firstLifetimeSeconds?: number;
  /** Whether a refresh issues a new refresh token and retires the used one (default: GitHub yes, HubSpot no). */
  rotate?: boolean;
}

/** One authorization of one OAuth client, as a user made it. */
export interface Grant {
  vendor: TokenVendor;
  clientId: string;
  clientSecret: string;
  /** The refresh token that works now (undefined once revoked). */
  readonly refreshToken: string | undefined;
  /** The access token issued last. */
  readonly accessToken: string;
  /** Refresh requests naming this grant's client id, whatever their answer. */
  readonly requests: number;
  /** An OAuth connection config (`github-oauth` / `hubspot-oauth`) holding the first tokens. */
  config(): Record<string, unknown>;
  /** Revokes the refresh token (the user removed the app): refreshing with it is refused from now on. */
  revoke(): void;
  /** The next `times` requests answer `status` (a 5xx or 429) without refreshing. */
  failWith(status: number, times?: number): void;
  /** Holds this grant's requests until `release()`; `arrived` settles when one is held. */
  hold(): { arrived: Promise<void>; release(): void };
}

export interface OAuthTokenStub {
  url: string;
  /** `127.0.0.1:<port>`, for the outbound client's allow list. */
  host: string;
  /** config.vendors.tokenUrls pointing here. */
  tokenUrls: Record<TokenVendor, string>;
  /** A new client with a user's authorization: its first access and refresh tokens. */
  authorize(vendor: TokenVendor, options?: GrantOptions): Grant;
  /** Whether an access token was issued here and has not expired (nor been revoked with its grant). */
  accepts(accessToken: string): boolean;
  /** Every token request, in order. */
  requests: StubRequest[];
  /** Every answer waits this long first (0 by default). */
  delayMs: number;
  close(): Promise<void>;
}

const PATHS: Record<TokenVendor, string> = { github: '/login/oauth/access_token', hubspot: '/oauth/v1/token' };
const LIFETIME: Record<TokenVendor, number> = { github: 8 * 3600, hubspot: 30 * 60 };
const GITHUB_DOCS = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';

const token = (prefix: string) => `${prefix}${randomBytes(18).toString('hex')}`;

interface GrantState {
  grant: Grant;
  options: Required<Omit<GrantOptions, 'firstLifetimeSeconds'>>;
  refreshToken: string | undefined;
  accessToken: string;
  requests: number;
  failures: Array<number>;
  held?: { arrive(): void; released: Promise<void> };
}

export async function startOAuthTokenStub(): Promise<OAuthTokenStub> {
  const server = await startHttpStub();
  const byClient = new Map<string, GrantState>();
  /** Access token → when it expires (ms), and its grant. */
  const issued = new Map<string, { expiresAt: number; state: GrantState }>();
  let delayMs = 0;

  const issue = (state: GrantState, vendor: TokenVendor, lifetimeSeconds: number) => {
    const access = vendor === 'github' ? token('ghu_') : token('CJT');
    issued.set(access, { expiresAt: Date.now() + lifetimeSeconds * 1000, state });
    state.accessToken = access;
    return access;
  };

  const authorize = (vendor: TokenVendor, options: GrantOptions = {}): Grant => {
    const clientId = vendor === 'github' ? `Iv1.${randomBytes(8).toString('hex')}` : randomUUID();
    const clientSecret = randomBytes(20).toString('hex');
    const lifetimeSeconds = options.lifetimeSeconds ?? LIFETIME[vendor];
    const firstLifetime = options.firstLifetimeSeconds ?? lifetimeSeconds;
    const state: GrantState = {
      grant: undefined as unknown as Grant,
      options: { lifetimeSeconds, rotate: options.rotate ?? vendor === 'github' },
      refreshToken: vendor === 'github' ? token('ghr_') : randomUUID(),
      accessToken: '',
      requests: 0,
      failures: [],
    };
    issue(state, vendor, firstLifetime);
    const firstAccess = state.accessToken;
    const firstRefresh = state.refreshToken;
    const expiresAt = new Date(issued.get(firstAccess)!.expiresAt).toISOString();
    state.grant = {
      vendor,
      clientId,
      clientSecret,
      get refreshToken() {
        return state.refreshToken;
      },
      get accessToken() {
        return state.accessToken;
      },
      get requests() {
        return state.requests;
      },
      config: () => ({ clientId, clientSecret, accessToken: firstAccess, refreshToken: firstRefresh, expiresAt, scopes: ['repo'] }),
      revoke: () => {
        state.refreshToken = undefined;
        for (const [access, entry] of issued) if (entry.state === state) issued.delete(access);
      },
      failWith: (status, times = 1) => state.failures.push(...Array<number>(times).fill(status)),
      hold: () => {
        let arrive!: () => void;
        let release!: () => void;
        const arrived = new Promise<void>((r) => (arrive = r));
        const released = new Promise<void>((r) => (release = r));
        state.held = { arrive, released };
        return {
          arrived,
          release: () => {
            state.held = undefined;
            release();
          },
        };
      },
    };
    byClient.set(clientId, state);
    return state.grant;
  };

  const answer = (vendor: TokenVendor) => async (req: StubRequest, res: http.ServerResponse) => {
    const form = Object.fromEntries(new URLSearchParams(req.body));
    const state = byClient.get(form.client_id ?? '');
    if (state) state.requests++;
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    if (state?.held) {
      const held = state.held;
      held.arrive();
      await held.released;
    }
    const failure = state?.failures.shift();
    if (failure !== undefined)
      return sendJson(res, failure, vendor === 'github' ? { message: 'Service Unavailable' } : { status: 'error', message: 'internal error' });
    if (req.method !== 'POST') return sendJson(res, 404, { message: 'Not Found' });
    if (!state || state.grant.clientSecret !== form.client_secret) return refuse(vendor, res, 'client');
    if (form.grant_type !== 'refresh_token') return refuse(vendor, res, 'grant_type');
    if (!state.refreshToken || form.refresh_token !== state.refreshToken) return refuse(vendor, res, 'refresh_token');
    const access = issue(state, vendor, state.options.lifetimeSeconds);
    if (state.options.rotate) state.refreshToken = vendor === 'github' ? token('ghr_') : randomUUID();
    const tokens =
      vendor === 'github'
        ? {
            access_token: access,
            expires_in: state.options.lifetimeSeconds,
            refresh_token: state.refreshToken,
            refresh_token_expires_in: 15_811_200,
            scope: '',
            token_type: 'bearer',
          }
        : { token_type: 'bearer', refresh_token: state.refreshToken, access_token: access, expires_in: state.options.lifetimeSeconds };
    if (vendor === 'github' && !/application\/json/.test(String(req.headers.accept ?? ''))) {
      // GitHub's default answer is form-encoded.
      const body = new URLSearchParams(Object.entries(tokens).map(([k, v]): [string, string] => [k, String(v)])).toString();
      return void res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }).end(body);
    }
    return sendJson(res, 200, tokens);
  };

  server.on(PATHS.github, answer('github'));
  server.on(PATHS.hubspot, answer('hubspot'));

  return {
    url: server.url,
    host: server.host,
    tokenUrls: { github: `${server.url}${PATHS.github}`, hubspot: `${server.url}${PATHS.hubspot}` },
    authorize,
    accepts: (accessToken) => (issued.get(accessToken)?.expiresAt ?? 0) > Date.now(),
    requests: server.requests,
    get delayMs() {
      return delayMs;
    },
    set delayMs(ms: number) {
      delayMs = ms;
    },
    close: () => server.close(),
  };
}

/** Each vendor's refusal of a wrong client, grant type or refresh token. */
function refuse(vendor: TokenVendor, res: http.ServerResponse, what: 'client' | 'grant_type' | 'refresh_token') {
  if (vendor === 'github') {
    const errors = {
      client: ['incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.'],
      grant_type: ['unsupported_grant_type', 'The grant type is not supported.'],
      refresh_token: ['bad_refresh_token', 'The refresh token passed is incorrect or expired.'],
    } as const;
    const [error, description] = errors[what];
    return sendJson(res, 200, { error, error_description: description, error_uri: GITHUB_DOCS });
  }
  const errors = {
    client: ['BAD_CLIENT_ID', 'missing or unknown client id'],
    grant_type: ['BAD_GRANT_TYPE', 'missing or unknown grant type'],
    refresh_token: ['BAD_REFRESH_TOKEN', 'missing or unknown refresh token'],
  } as const;
  const [status, message] = errors[what];
  return sendJson(res, 400, { status, message, correlationId: randomUUID() });
}
