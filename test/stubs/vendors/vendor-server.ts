import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { type HttpStub, type StubHandler, type StubRequest, startHttpStub } from '../http-stub';

export type VendorName = 'twilio' | 'github' | 'hubspot';

/** A forced answer: `status` in the vendor's own error shape; 429 (or GitHub's 403) with Retry-After when `retryAfterSeconds` is given; status 0 drops the connection. */
export interface FailAnswer {
  status: number;
  retryAfterSeconds?: number;
  /** GitHub only: a 403 secondary rate limit (the message alone: no Retry-After, quota left). */
  secondaryLimit?: boolean;
}

export interface VendorRequest extends StubRequest {
  vendor: VendorName;
}

/** Writes the vendor's error body for a forced failure. */
export type FailureWriter = (answer: FailAnswer, res: http.ServerResponse) => void;

export interface VendorServer {
  stub: HttpStub;
  failNext(n: number, answer: FailAnswer): void;
}

/**
 * One vendor API on its own port: every request is recorded (with the
 * vendor's name) and takes a forced failure if one is queued, waits the
 * shared delay, then answers with the failure or the vendor's router.
 */
export async function startVendorServer(
  vendor: VendorName,
  shared: { requests: VendorRequest[]; delayMs: () => number; held: Set<() => void> },
  route: StubHandler,
  failure: FailureWriter,
): Promise<VendorServer> {
  const failures: FailAnswer[] = [];
  const fallback: StubHandler = async (req, res) => {
    shared.requests.push({ ...req, vendor });
    // Taken as the request arrives, not after the delay: a request still held from an earlier test must not take a
    // failure queued for the next one.
    const forced = failures.shift();
    const delay = shared.delayMs();
    if (delay > 0) {
      await new Promise<void>((resolve) => {
        const release = () => {
          clearTimeout(timer);
          shared.held.delete(release);
          resolve();
        };
        const timer = setTimeout(release, delay);
        shared.held.add(release);
      });
    }
    if (!forced) return route(req, res);
    if (forced.status === 0) return res.destroy();
    return failure(forced, res);
  };
  const stub = await startHttpStub({ fallback });
  return {
    stub,
    failNext: (n, answer) => {
      for (let i = 0; i < n; i++) failures.push(answer);
    },
  };
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** `Basic` credentials as [user, password], or null. */
export function basicAuth(req: StubRequest): [string, string] | null {
  const header = req.headers.authorization ?? '';
  const match = /^Basic\s+(.+)$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** The token of `Authorization: Bearer <token>` (GitHub also accepts `token <token>`), or null. */
export function bearerToken(req: StubRequest): string | null {
  const match = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match ? match[1] : null;
}

/** Parses a JSON request body, or undefined. */
export function jsonBody(req: StubRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

/** The i-th of n timestamps from `start` (default: a day ago) `spacingSeconds` apart (default 60). */
export function timeline(opts: { start?: string | Date; spacingSeconds?: number }, i: number): Date {
  const start = opts.start === undefined ? Date.now() - 86_400_000 : new Date(opts.start).getTime();
  return new Date(start + i * (opts.spacingSeconds ?? 60) * 1000);
}
