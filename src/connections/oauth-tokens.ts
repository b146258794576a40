import { setTimeout as sleep } from 'node:timers/promises';
import type { OutboundHttp, OutboundResponse } from '../outbound/outbound-http';
import type { OAuthTokenUrls, OAuthVendor } from '../config/config';
import type { Connection } from './connection.entity';
import type { ConnectionsService } from './connections.service';
import { refreshImpossible, refreshRefused, refreshUnavailable, vendorWords } from './oauth-errors';
import { readTokenOutcome } from './oauth-token-outcome';
import { missingForRefresh, needsRefresh, refreshRequest, tokenVendorOf, withTokens } from './oauth-token-endpoints';
import type { TokenRefreshLease, TokenRefreshLeases } from './token-refresh-leases.repository';

/** A connection with its decrypted config. Plaintext: callers must not log or store it. */
export interface CurrentConnection {
  connection: Connection;
  config: Record<string, unknown>;
}

export interface OAuthTokensOptions {
  /** How long a process may hold the refresh lease (default 30 s): longer than the token request may take. */
  leaseMs?: number;
  /** How often a process waiting for another's refresh looks at the lease (default 200 ms). */
  pollMs?: number;
  /** The token request's deadline, redirects and body included (default 10 s). */
  requestTimeoutMs?: number;
}

/** Rounds of "wait for the other process, find the token still stale, try to take the lease" before giving up. */
const MAX_ROUNDS = 3;

/**
 * Hands out OAuth connections' configs with an access token fit to use,
 * refreshing it at the vendor's token endpoint first when it is about to
 * expire or the vendor has just refused it. One refresh at a time per
 * connection: calls in this process share one promise, and processes (the
 * API, the workers) take the connection's `token_refresh_until` lease in the
 * database; one that finds it taken waits for the holder, then uses what the
 * holder stored. This matters beyond saving requests: GitHub rotates the
 * refresh token on use, so a second concurrent refresh would be refused.
 */
export class OAuthTokens {
  private readonly flights = new Map<string, Promise<CurrentConnection | undefined>>();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly requestTimeoutMs: number;

  constructor(
    private readonly connections: Pick<ConnectionsService, 'find' | 'configOf' | 'sealConfig'>,
    private readonly leases: TokenRefreshLeases,
    private readonly http: Pick<OutboundHttp, 'request'>,
    private readonly tokenUrls: OAuthTokenUrls,
    options: OAuthTokensOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 200;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /**
   * The connection and its config, with a usable access token for types
   * that can refresh one (tokenVendorOf); other types as stored. Undefined
   * when the organization has no such connection. `rejectedAccessToken`: the
   * vendor answered 401 to this token, so it is refreshed unless the stored
   * one is already another. Throws OAuthRefreshRefused (reconnect needed) or
   * OAuthRefreshUnavailable (try later).
   */
  async current(organizationId: string, connectionId: string, options: { rejectedAccessToken?: string } = {}): Promise<CurrentConnection | undefined> {
    const connection = await this.connections.find(organizationId, connectionId);
    if (!connection) return undefined;
    return this.freshen({ connection, config: await this.connections.configOf(connection) }, options);
  }

  /** As `current`, for a connection the caller has loaded and decrypted already (a step resolving one by name). */
  async freshen(found: CurrentConnection, options: { rejectedAccessToken?: string } = {}): Promise<CurrentConnection | undefined> {
    const vendor = tokenVendorOf(found.connection.type);
    if (!vendor || !needsRefresh(found.config, Date.now(), options.rejectedAccessToken)) return found;
    const { organizationId, id } = found.connection;
    const key = `${organizationId}/${id}`;
    let flight = this.flights.get(key);
    if (!flight) {
      flight = this.refresh(found.connection, vendor, options.rejectedAccessToken).finally(() => this.flights.delete(key));
      this.flights.set(key, flight);
    }
    return flight;
  }

  /** Takes the lease and refreshes, or waits for the process that holds it and uses what it stored. */
  private async refresh(connection: Connection, vendor: OAuthVendor, rejected: string | undefined): Promise<CurrentConnection | undefined> {
    const { organizationId, id } = connection;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const lease = await this.leases.take(organizationId, id, this.leaseMs);
      if (lease) return this.refreshHolding({ ...connection, configEncrypted: lease.configEncrypted }, vendor, rejected, lease);
      if (!(await this.untilReleased(organizationId, id))) return undefined;
      const now = await this.connections.find(organizationId, id);
      if (!now) return undefined;
      const config = await this.connections.configOf(now);
      if (!needsRefresh(config, Date.now(), rejected)) return { connection: now, config };
      connection = now; // the holder failed, or stored a token that is stale already: try ourselves
    }
    throw refreshUnavailable(vendor, connection, null, 'other processes kept the refresh lease');
  }

  /** With the lease: refresh unless the config taken with it is fresh already, then store by compare-and-swap. */
  private async refreshHolding(connection: Connection, vendor: OAuthVendor, rejected: string | undefined, lease: TokenRefreshLease) {
    const { organizationId, id } = connection;
    try {
      const config = await this.connections.configOf(connection);
      if (!needsRefresh(config, Date.now(), rejected)) {
        // Another process stored a fresh token between our read and our lease.
        await this.leases.release(organizationId, id, lease);
        return { connection, config };
      }
      const next = withTokens(config, await this.requestTokens(connection, vendor, config), Date.now());
      const sealed = await this.connections.sealConfig(connection, next);
      if (await this.leases.storeRefreshed(organizationId, id, connection.configEncrypted, sealed)) {
        return { connection: { ...connection, configEncrypted: sealed }, config: next };
      }
    } catch (err) {
      // The refresh's own failure is what the caller needs; the lease runs out by itself if this release fails too.
      await this.leases.release(organizationId, id, lease).catch(() => undefined);
      throw err;
    }
    // The config was replaced meanwhile (PATCH /connections/{id}): the user's config wins over our refresh.
    await this.leases.release(organizationId, id, lease);
    const replaced = await this.connections.find(organizationId, id);
    return replaced ? { connection: replaced, config: await this.connections.configOf(replaced) } : undefined;
  }

  /** Waits until nobody holds the lease (at most about its length); false when the connection is gone. */
  private async untilReleased(organizationId: string, id: string): Promise<boolean> {
    const deadline = Date.now() + this.leaseMs + this.pollMs;
    for (;;) {
      const held = await this.leases.held(organizationId, id);
      if (held === undefined) return false;
      if (!held || Date.now() > deadline) return true;
      await sleep(this.pollMs);
    }
  }

  /** Asks the vendor's token endpoint; the answer's tokens, or OAuthRefreshRefused / OAuthRefreshUnavailable. */
  private async requestTokens(connection: Connection, vendor: OAuthVendor, config: Record<string, unknown>) {
    const missing = missingForRefresh(config);
    if (missing.length > 0) throw refreshImpossible(vendor, connection, missing);
    const secrets = [config.accessToken, config.refreshToken, config.clientSecret];
    let res: OutboundResponse;
    try {
      res = await this.http.request(refreshRequest(this.tokenUrls[vendor], config, this.requestTimeoutMs));
    } catch (err) {
      // The outbound client's messages name the host and the cause, never the request.
      throw refreshUnavailable(vendor, connection, null, vendorWords(err instanceof Error ? err.message : String(err), secrets) ?? 'no answer');
    }
    const answer = readTokenOutcome(res.status, res.body);
    if (answer.kind === 'refused') {
      throw refreshRefused(vendor, connection, answer.status, vendorWords(answer.code, secrets) ?? 'refused', vendorWords(answer.description, secrets));
    }
    if (answer.kind === 'unavailable') throw refreshUnavailable(vendor, connection, answer.status, answer.reason);
    return answer;
  }
}
