import { OutboundRefused, OutboundTimeout } from '../outbound/outbound-http';
import { AppError } from '../errors/errors';
import type { ProxyReference } from './proxy-reference';

/**
 * The caller's 404 when the upstream could not be reached or stopped
 * sending. Messages name the vendor, the connection and at most the host:
 * never the URL (it may carry a signature) or the credentials.
 */
export function upstreamFailure(reference: ProxyReference, connectionName: string, err: unknown): AppError {
  const { vendorTitle, label } = reference.type;
  const what = `The ${vendorTitle} ${label} could not be fetched through connection "${connectionName}"`;
  // The guard's message names the host and the setting an operator can change; nothing secret.
  if (err instanceof OutboundRefused) return new AppError(404, 'upstream_unreachable', `${what}: ${err.message}`);
  if (err instanceof OutboundTimeout) return new AppError(404, 'upstream_unreachable', `${what}: ${vendorTitle} did not answer in time; try again later`);
  // undici's error for a body that sent nothing for the idle timeout.
  if (err instanceof Error && err.name === 'BodyTimeoutError') {
    return new AppError(404, 'upstream_unreachable', `${what}: ${vendorTitle} stopped sending; try again later`);
  }
  return new AppError(404, 'upstream_unreachable', `${what}: ${vendorTitle} could not be reached; try again later`);
}

/** The caller's answer to a non-2xx upstream status: 416 for a range outside the media, else 404 with what the status means. */
export function upstreamStatusError(reference: ProxyReference, connectionName: string, status: number, contentRange: string | undefined): AppError {
  const { vendorTitle, label } = reference.type;
  if (status === 416) {
    const size = /^bytes \*\/(\d+)$/.exec(contentRange ?? '')?.[1];
    return new AppError(416, 'range_not_satisfiable', `The requested range lies outside the ${label}${size ? ` (${size} bytes)` : ''}`);
  }
  const via = `connection "${connectionName}"`;
  if (status === 401 || status === 403) {
    return new AppError(404, 'upstream_error', `${vendorTitle} refused the credentials of ${via} (${status}); check its config`);
  }
  if (status === 404) return new AppError(404, 'upstream_error', `${vendorTitle} has no such ${label} in the account of ${via} (404)`);
  return new AppError(404, 'upstream_error', `${vendorTitle} answered ${status} for this ${label} (${via}); try again later`);
}
