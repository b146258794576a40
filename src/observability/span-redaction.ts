import type { Attributes } from '@opentelemetry/api';
import { activeMask } from './trace-context';

/**
 * What a span may say about an outbound call: scheme, host, port and path, never the query string (an API key often
 * rides there). The path is masked as the calling step's record is (a token in a path, as some vendors want it,
 * becomes ****), and cut to a bounded length.
 */
export function outboundUrlAttributes(origin: string, path: string): Attributes {
  const mask = activeMask() ?? ((text: string) => text);
  const pathOnly = mask(path.split('?')[0]).slice(0, 512);
  const attributes: Attributes = { 'url.path': pathOnly, 'url.full': mask(origin) + pathOnly };
  // undefined drops the attribute the instrumentation wrote (a span keeps no attribute whose value is undefined).
  attributes['url.query'] = undefined;
  return attributes;
}
