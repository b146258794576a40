import { createHash } from 'node:crypto';
import { parse as parseQuery, stringify as stringifyQuery } from 'node:querystring';

// What Twilio signs, as its Node library (twilio/lib/webhooks/webhooks.js) reconstructs it;
// the library is a devDependency only, the oracle of twilio-scheme.test.ts.

const BODY_HASH_PARAMETER = 'bodySHA256';

function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * The URL with `bodySHA256=<hex SHA-256 of the body>` added to its query, as
 * Twilio calls a webhook that receives JSON: the signature then covers the URL
 * only, and the body is bound to it by that hash.
 */
export function twilioUrlWithBodyHash(url: string, body: Buffer): string {
  if (twilioBodyHash(url) !== undefined) throw new Error(`The URL already carries ${BODY_HASH_PARAMETER}`);
  const hashIndex = url.indexOf('#');
  const [base, fragment] = hashIndex === -1 ? [url, ''] : [url.slice(0, hashIndex), url.slice(hashIndex)];
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${BODY_HASH_PARAMETER}=${sha256Hex(body)}${fragment}`;
}

/** The bodySHA256 query parameter of a JSON delivery's URL, or undefined for any other delivery (or a URL that does not parse). */
export function twilioBodyHash(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get(BODY_HASH_PARAMETER) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Whether the body is the one whose hash the URL carries. Both sides are public (anyone can hash the body), so a plain comparison leaks nothing. */
export function twilioBodyMatches(bodyHash: string, body: Buffer): boolean {
  return bodyHash === sha256Hex(body);
}

/**
 * A form body's parameters as Twilio appends them to the URL: sorted by name,
 * each name followed by its value; a repeated name contributes each distinct
 * value once, in sorted order, as the library's toFormUrlEncodedParam does.
 */
export function twilioFormParameters(body: Buffer): string {
  const values = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return [...values.keys()]
    .sort()
    .map((name) => [...new Set(values.get(name))].sort().map((value) => name + value))
    .flat()
    .join('');
}

/** Scheme, optional user info, host and port of a URL, split without normalizing the rest (Twilio signs the characters it sent). */
function splitUrl(url: string) {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (!match) return undefined;
  const [prefix, scheme, authority] = match;
  const userInfoEnd = authority.lastIndexOf('@');
  const hostAndPort = authority.slice(userInfoEnd + 1);
  // After the closing bracket of an IPv6 literal, a colon starts the port.
  const portStart = hostAndPort.indexOf(':', hostAndPort.lastIndexOf(']') + 1);
  return {
    scheme,
    userInfo: authority.slice(0, userInfoEnd + 1),
    host: portStart === -1 ? hostAndPort : hostAndPort.slice(0, portStart),
    port: portStart === -1 ? '' : hostAndPort.slice(portStart),
    rest: url.slice(prefix.length),
  };
}

function withPort(url: string): string {
  const parts = splitUrl(url);
  if (!parts || parts.port) return url;
  const port = parts.scheme.toLowerCase() === 'https://' ? ':443' : ':80';
  return parts.scheme + parts.userInfo + parts.host + port + parts.rest;
}

function withoutPort(url: string): string {
  const parts = splitUrl(url);
  return parts ? parts.scheme + parts.userInfo + parts.host + parts.rest : url;
}

function withLegacyQuery(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || queryStart === url.length - 1) return url;
  return url.slice(0, queryStart) + '?' + stringifyQuery(parseQuery(url.slice(queryStart + 1)));
}

/**
 * Every form of the URL that Twilio's validateRequest accepts a signature
 * for: as received, with and without its port (Twilio may have signed
 * https://host/ or https://host:443/ for the same call), then as `new URL()`
 * normalizes it, with and without the legacy querystring encoding.
 */
export function twilioUrlCandidates(url: string): string[] {
  const candidates = [withoutPort(url), withPort(url)];
  let normalized: string | undefined;
  try {
    normalized = new URL(url).toString();
  } catch {
    // A URL that does not parse has only the forms as received.
  }
  if (normalized !== undefined) {
    const plain = [withoutPort(normalized), withPort(normalized)];
    candidates.push(...plain, ...plain.map(withLegacyQuery));
  }
  return [...new Set(candidates)];
}
