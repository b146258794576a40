import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OutboundHttp, OutboundStream } from '../outbound/outbound-http';
import { FairScheduler } from '../lib/fair-scheduler';
import type { Config, VendorBaseUrls } from '../config/config';
import type { Connection } from '../connections/connection.entity';
import type { ConnectionsService } from '../connections/connections.service';
import { AppError, TooManyRequestsError, ValidationError } from '../errors/errors';
import type { Logger } from '../logging/logger';
import { parseReference, type ProxyReference } from './proxy-reference';
import type { ProxyQuery } from './proxy.schemas';
import { upstreamFailure, upstreamStatusError } from './upstream-errors';
import type { UpstreamRequest } from './reference-types';

/** Where the proxied answer goes: the caller's response, started once the upstream's status and headers are known. */
export interface MediaSink {
  /** Fires when the caller goes away: the upstream request is aborted. */
  signal: AbortSignal;
  /** A HEAD request: the headers are answered, the body is not read. */
  headOnly: boolean;
  start(status: number, headers: Record<string, string>): Writable;
}

/** The upstream headers a media player needs; no other (cookies, vendor ids) reaches the caller. */
const MIRRORED_HEADERS = ['content-type', 'content-length', 'accept-ranges', 'content-range'];
/** A Range header longer than this, or not in bytes, is dropped (RFC 9110 lets a server ignore Range). */
const RANGE = /^bytes=[0-9, -]{1,200}$/;
/** Connection names an ambiguity message lists. */
const NAMES_LISTED = 10;
/** What a refused caller is told to wait: a media stream usually ends within seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The media proxy (interface.md 4.6): resolves a `proxy+<service>:<type>://<id>`
 * reference through the organization's own connection of that service, sends
 * the request the reference type builds (never a URL from the caller) through
 * the SSRF-guarded client, and streams the answer with backpressure.
 */
export class ProxyService {
  private readonly slots: FairScheduler;

  constructor(
    private readonly connections: ConnectionsService,
    private readonly http: OutboundHttp,
    private readonly baseUrls: VendorBaseUrls,
    private readonly limits: Config['proxy'],
    private readonly logger: Logger,
  ) {
    // No queue: a stream holds its slot for as long as the caller listens, so waiting for one would hold the caller too.
    this.slots = new FairScheduler({
      concurrency: limits.maxStreams,
      perKey: limits.maxStreamsPerOrganization,
      maxWaitingPerKey: 0,
      whenFull: () =>
        new TooManyRequestsError(
          `This organization already has ${limits.maxStreamsPerOrganization} media streams open (or the service is at its limit); try again when one ends`,
          'proxy_busy',
          RETRY_AFTER_SECONDS,
        ),
    });
  }

  /** Streams the referenced media to `sink`; the caller's `Range` (only that header) is passed on. Resolves when the stream ends. */
  async stream(organizationId: string, query: ProxyQuery, range: string | undefined, sink: MediaSink): Promise<void> {
    const reference = parseReference(query.url);
    const format = checkFormat(reference, query.format);
    await this.slots.run(organizationId, async () => {
      const { connection, config } = await this.connectionFor(organizationId, reference, query.connection);
      const upstream = reference.type.request(reference.id, config, this.baseUrls, format);
      await this.relay(reference, connection.name, upstream, range !== undefined && RANGE.test(range) ? range : undefined, sink);
    });
  }

  /** The organization's connection for the reference: the one named, else its only one of the type. */
  private async connectionFor(organizationId: string, reference: ProxyReference, name: string | undefined) {
    const wanted = reference.type.connectionType;
    let connection: Connection;
    let config: Record<string, unknown>;
    if (name !== undefined) {
      const found = await this.connections.resolveByName(organizationId, name);
      if (!found || found.connection.type !== wanted) {
        throw new AppError(404, 'connection_not_found', `This organization has no ${wanted} connection named "${name}"`);
      }
      ({ connection, config } = found);
    } else {
      const candidates = await this.connections.listByType(organizationId, wanted, NAMES_LISTED + 1);
      if (candidates.length === 0) {
        throw new AppError(
          404,
          'connection_not_found',
          `This organization has no ${wanted} connection to fetch ${reference.key} references with; create one of type ${wanted}`,
        );
      }
      if (candidates.length > 1) {
        const names = candidates.slice(0, NAMES_LISTED).map((c) => `"${c.name}"`);
        const more = candidates.length > NAMES_LISTED ? ', …' : '';
        throw new ValidationError(
          `This organization has several ${wanted} connections (${names.join(', ')}${more}); name the one to use in the connection query parameter`,
          [{ path: 'query.connection', message: `required when there are several ${wanted} connections` }],
          'connection_ambiguous',
        );
      }
      connection = candidates[0];
      config = await this.connections.configOf(connection);
    }
    const missing = reference.type.configFields.filter((field) => typeof config[field] !== 'string' || config[field] === '');
    if (missing.length > 0) {
      throw new AppError(404, 'connection_unusable', `The ${wanted} connection "${connection.name}" has no ${missing.join(', ')}; update its config`);
    }
    return { connection, config: config as Record<string, string> };
  }

  private async relay(reference: ProxyReference, connectionName: string, upstream: UpstreamRequest, range: string | undefined, sink: MediaSink): Promise<void> {
    const context = { reference: reference.key, connection: connectionName };
    let res: OutboundStream;
    try {
      res = await this.http.stream({
        url: upstream.url,
        headers: range ? { ...upstream.headers, range } : upstream.headers,
        // A vendor may redirect to its media store: the credentials stay behind, the range goes along.
        portableHeaders: ['range'],
        headersTimeoutMs: this.limits.headersTimeoutMs,
        idleTimeoutMs: this.limits.idleTimeoutMs,
        signal: sink.signal,
      });
    } catch (err) {
      if (sink.signal.aborted) return;
      throw this.failed(context, upstreamFailure(reference, connectionName, err), err);
    }
    if (res.status < 200 || res.status > 299) {
      res.body.on('error', () => undefined).destroy();
      throw this.failed({ ...context, status: res.status }, upstreamStatusError(reference, connectionName, res.status, res.headers['content-range']));
    }
    let first: Buffer | null;
    try {
      first = res.headers['content-length'] === '0' ? null : await firstChunk(res.body);
    } catch (err) {
      if (sink.signal.aborted) return;
      throw this.failed(context, upstreamFailure(reference, connectionName, err), err);
    }
    if (first === null) {
      res.body.on('error', () => undefined).destroy();
      throw this.failed(
        context,
        new AppError(404, 'upstream_empty', `${reference.type.vendorTitle} sent an empty ${reference.type.label} (connection "${connectionName}")`),
      );
    }
    // The body is the vendor's, served from our origin: never sniffed, never run as a page, and only of the type's media types.
    const headers: Record<string, string> = {
      'cache-control': 'private',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    };
    for (const name of MIRRORED_HEADERS) if (res.headers[name] !== undefined) headers[name] = res.headers[name];
    if (headers['content-type'] !== undefined && !reference.type.mediaTypes.test(headers['content-type'])) headers['content-type'] = 'application/octet-stream';
    const out = sink.start(res.status, headers);
    if (sink.headOnly) {
      res.body.on('error', () => undefined).destroy();
      out.end();
      return;
    }
    out.write(first);
    try {
      // Pauses the upstream while the caller is slow; destroys it when the caller leaves.
      await pipeline(res.body, out);
    } catch (err) {
      if (!sink.signal.aborted) this.logger.warn({ ...context, err: { type: errorName(err) } }, 'proxy upstream stream ended early');
    }
  }

  /** Logs what failed (never the request: it holds the credentials) and hands back the caller's error. */
  private failed(context: Record<string, unknown>, answer: AppError, cause?: unknown): AppError {
    this.logger.warn({ ...context, code: answer.code, err: cause === undefined ? undefined : { type: errorName(cause) } }, 'proxy upstream failed');
    return answer;
  }
}

function checkFormat(reference: ProxyReference, format: string | undefined): string | undefined {
  if (format === undefined) return undefined;
  const wanted = format.toLowerCase();
  if (reference.type.formats.includes(wanted)) return wanted;
  const offered = reference.type.formats.length > 0 ? `one of ${reference.type.formats.join(', ')}` : 'left out: this type has one format';
  throw new ValidationError(
    `The format of a ${reference.key} reference must be ${offered}`,
    [{ path: 'query.format', message: 'unsupported format' }],
    'invalid_format',
  );
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

/** The body's first bytes, or null when it ends without any; the body is left paused for the pipeline to resume. */
function firstChunk(body: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      body.pause();
      body.off('data', onData).off('end', onEnd).off('error', onError);
      finish();
    };
    const onData = (chunk: Buffer) => settle(() => resolve(chunk));
    const onEnd = () => settle(() => resolve(null));
    const onError = (err: Error) => settle(() => reject(err));
    body.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
