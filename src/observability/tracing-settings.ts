/**
 * Whether this process exports traces, read from the standard OpenTelemetry variables. The SDK reads most of them
 * itself (endpoints, headers, timeout, sampler, service name); this decides on or off and refuses, at start, values
 * the SDK would only warn about and then ignore (a sampler misspelt, gRPC asked of an HTTP exporter), so an operator
 * never believes traces flow when they do not. Node built-ins only: it runs before anything else loads.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  protocol: OtlpProtocol;
  /** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  serviceName: string;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

export class TracingSettingsError extends Error {}

/** undefined: tracing is off (no endpoint set, OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none), and nothing is loaded. */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const value = (name: string) => env[name]?.trim() || undefined;
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!tracesEndpoint && !endpoint) return undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return undefined;
  const problems: string[] = [];
  if (exporter !== undefined && exporter !== 'otlp') problems.push(`OTEL_TRACES_EXPORTER: "${exporter}" is not supported; use otlp (or none)`);

  const protocol = (value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf').toLowerCase();
  if (!PROTOCOLS.includes(protocol)) {
    problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported; use http/protobuf (the default) or http/json`);
  }
  const url = tracesEndpoint ?? `${endpoint!.replace(/\/+$/, '')}/v1/traces`;
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
    problems.push(
      `${tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'}: expected an http(s) URL such as http://127.0.0.1:4318`,
    );
  }
  const sampler = value('OTEL_TRACES_SAMPLER')?.toLowerCase();
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) problems.push(`OTEL_TRACES_SAMPLER: "${sampler}" is not one of ${SAMPLERS.join(', ')}`);
  const ratio = value('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && sampler?.endsWith('traceidratio') && !(Number(ratio) >= 0 && Number(ratio) <= 1)) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG: "${ratio}" is not a ratio between 0 and 1`);
  }
  const headers = value('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? value('OTEL_EXPORTER_OTLP_HEADERS');
  // The header values are credentials: a bad entry is named by its position, never echoed.
  headers?.split(',').forEach((entry, i) => {
    if (!/^[^=\s]+=./.test(entry.trim())) problems.push(`OTEL_EXPORTER_OTLP_HEADERS: entry ${i + 1} is not key=value`);
  });
  if (problems.length) throw new TracingSettingsError(`Invalid tracing configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { protocol: protocol as OtlpProtocol, url, serviceName: value('OTEL_SERVICE_NAME') ?? 'flowbase' };
}
