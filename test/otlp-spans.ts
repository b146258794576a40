/**
 * Spans as the OTLP JSON encoding carries them (what Jaeger's /api/v3 answers), flattened into one plain object per
 * span with decoded attribute values, so a test reads `span.attributes['http.route']` instead of walking
 * resourceSpans → scopeSpans → spans → attributes[] → value.stringValue.
 */

export type AttributeValue = string | number | boolean;

export interface ExportedSpan {
  /** Lowercase hex, 32 characters (as `span.spanContext().traceId` gives it). */
  traceId: string;
  /** Lowercase hex, 16 characters. */
  spanId: string;
  /** Lowercase hex, or undefined for a root span. */
  parentSpanId?: string;
  name: string;
  kind: 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** Arrays and key-value lists are given as JSON text, bytes as base64 (as OTLP JSON carries them). */
  attributes: Record<string, AttributeValue>;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  /** The resource's attributes: service.name and the rest. */
  resource: Record<string, AttributeValue>;
  /** The instrumentation scope (the tracer's name and version). */
  scope: { name: string; version?: string };
  /** Milliseconds since the epoch. */
  startTime: number;
  durationMs: number;
}

const KINDS: ExportedSpan['kind'][] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const STATUS_CODES: ExportedSpan['status']['code'][] = ['unset', 'ok', 'error'];

/** Lowercase hex, whether the encoding gave hex (OTLP JSON) or base64 (protobuf JSON's default for bytes). */
export function hexId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  if (/^[0-9a-f]+$/i.test(id) && (id.length === 16 || id.length === 32)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

/** An enum as OTLP JSON should carry it (a number) or as protobuf JSON may (`SPAN_KIND_SERVER`, `STATUS_CODE_ERROR`). */
function enumValue<T extends string>(value: unknown, names: T[], prefix: string): T {
  if (typeof value === 'number') return names[value] ?? names[0];
  if (typeof value === 'string') return (names.find((name) => `${prefix}${name.toUpperCase()}` === value) ?? names[0]) as T;
  return names[0];
}

function decodeValue(value: any): unknown {
  if (value === undefined || value === null) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  // int64 travels as a string in JSON; the values tests look at fit a double.
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('bytesValue' in value) return value.bytesValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(decodeValue);
  if ('kvlistValue' in value) return Object.fromEntries((value.kvlistValue.values ?? []).map((kv: any) => [kv.key, decodeValue(kv.value)]));
  return undefined;
}

export function decodeAttributes(attributes: any[] | undefined): Record<string, AttributeValue> {
  const decoded: Record<string, AttributeValue> = {};
  for (const { key, value } of attributes ?? []) {
    const plain = decodeValue(value);
    if (plain === undefined) continue;
    decoded[key] = typeof plain === 'object' ? JSON.stringify(plain) : (plain as AttributeValue);
  }
  return decoded;
}

const nanosToMs = (nanos: string | number | undefined) => Number(BigInt(nanos ?? 0) / 1_000_000n);

/** Every span of an OTLP JSON `{resourceSpans: [...]}` (an export request, or the `result` of Jaeger's /api/v3/traces). */
export function flattenSpans(traces: { resourceSpans?: any[] } | undefined): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const resourceSpans of traces?.resourceSpans ?? []) {
    const resource = decodeAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = { name: scopeSpans.scope?.name ?? '', ...(scopeSpans.scope?.version ? { version: scopeSpans.scope.version } : {}) };
      for (const span of scopeSpans.spans ?? []) {
        const parentSpanId = hexId(span.parentSpanId);
        spans.push({
          traceId: hexId(span.traceId)!,
          spanId: hexId(span.spanId)!,
          ...(parentSpanId ? { parentSpanId } : {}),
          name: span.name,
          kind: enumValue(span.kind, KINDS, 'SPAN_KIND_'),
          attributes: decodeAttributes(span.attributes),
          status: {
            code: enumValue(span.status?.code, STATUS_CODES, 'STATUS_CODE_'),
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: decodeAttributes(event.attributes) })),
          resource,
          scope,
          startTime: nanosToMs(span.startTimeUnixNano),
          durationMs: (Number(BigInt(span.endTimeUnixNano ?? 0) - BigInt(span.startTimeUnixNano ?? 0)) || 0) / 1e6,
        });
      }
    }
  }
  return spans;
}
