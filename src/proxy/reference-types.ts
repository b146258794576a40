import type { Vendor, VendorBaseUrls } from '../config/config';

/** The upstream request the proxy sends for one reference: always built here from configuration, never taken from the caller. */
export interface UpstreamRequest {
  url: string;
  /** Credentials included: never logged, never shown. */
  headers: Record<string, string>;
}

/** One kind of `proxy+<service>:<type>://<id>` reference the proxy resolves. */
export interface ReferenceType {
  /** Who answers, in messages: `Twilio`. */
  vendorTitle: string;
  /** What one reference names, in messages: `recording`. */
  label: string;
  /** The connection type whose config reaches the media. */
  connectionType: string;
  /** Whose base URL (config.vendors.baseUrls) the request goes to. */
  vendor: Vendor;
  /** What a valid id looks like; anything else is refused before any lookup. */
  idPattern: RegExp;
  /** The same pattern in words, for the 400 message. */
  idDescription: string;
  /** Formats the caller may ask for with `format`; none asked: the vendor's default. */
  formats: readonly string[];
  /** Media types the vendor may answer with; any other is sent as application/octet-stream, never rendered from our origin. */
  mediaTypes: RegExp;
  /** The fields of the connection's config it needs; a connection lacking one cannot be used. */
  configFields: readonly string[];
  /** Builds the request; `config` has every field of `configFields` as a non-empty string. */
  request(id: string, config: Record<string, string>, baseUrls: VendorBaseUrls, format: string | undefined): UpstreamRequest;
}

function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/**
 * The registered reference types, keyed `<service>:<type>`. Adding one is
 * one entry here (and its connection type in src/connections/types).
 */
export const REFERENCE_TYPES: Readonly<Record<string, ReferenceType>> = {
  /**
   * A call recording's media (Twilio's Recording resource). Without a
   * suffix Twilio answers WAV; `.mp3` and `.wav` choose. Twilio may redirect
   * to its media store, which the client follows without the credentials.
   */
  'twilio:recording': {
    vendorTitle: 'Twilio',
    label: 'recording',
    connectionType: 'twilio',
    vendor: 'twilio',
    idPattern: /^RE[0-9a-fA-F]{32}$/,
    idDescription: 'a Twilio recording SID: RE followed by 32 hexadecimal digits',
    formats: ['mp3', 'wav'],
    mediaTypes: /^(audio\/[\w.+-]+|multipart\/byteranges)\s*(;|$)/i,
    configFields: ['accountSid', 'authToken'],
    request: (sid, config, baseUrls, format) => ({
      url: `${baseUrls.twilio}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Recordings/${sid}${format ? `.${format}` : ''}`,
      headers: { authorization: basicAuth(config.accountSid, config.authToken) },
    }),
  },
};
