import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

interface AllowEntry {
  network: Address;
  bits: number;
  /** undefined: any port */
  port?: number;
}

/** Decides whether an outbound connection to a resolved IP and port may be made. */
export interface AddressPolicy {
  /** Returns null when the connection is allowed, otherwise why not (e.g. `link-local address`). */
  refusal(ip: string, port: number): string | null;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback address',
  private: 'private address',
  linkLocal: 'link-local address',
  uniqueLocal: 'unique-local address',
  carrierGradeNat: 'carrier-grade NAT address',
  unspecified: 'unspecified address',
  multicast: 'multicast address',
  broadcast: 'broadcast address',
  reserved: 'reserved address',
};

/**
 * Parses an IP the way the connection will see it: IPv4-mapped IPv6 becomes
 * IPv4 so `::ffff:169.254.169.254` is judged as the metadata address it is.
 */
export function parseAddress(ip: string): Address | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : null;
}

/** Why an address is not public unicast, or null when it is. */
export function nonPublicReason(address: Address): string | null {
  const range = address.range();
  if (range === 'unicast') return null;
  return RANGE_NAMES[range] ?? `${range} address range`;
}

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The addresses a connection to `address` really reaches, each to be judged,
 * or why it is refused outright. IPv6 forms that carry an IPv4 address are
 * tunnelled or translated to it, so they are judged by that IPv4 address alone
 * (ipaddr.js calls some of them plain unicast, or merely "6to4").
 */
function destinations(address: Address): Address[] | string {
  if (address.kind() === 'ipv4') return [address];
  const p = (address as ipaddr.IPv6).parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const last32 = ipv4(p[6], p[7]);
  if (zeros(0, 6)) return p[6] === 0 && p[7] <= 1 ? [address] : [last32]; // IPv4-compatible, but :: and ::1 are themselves
  if (zeros(0, 5) && p[5] === 0xffff) return [last32]; // IPv4-mapped, should ipaddr.process not have run
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [last32]; // IPv4-translated (RFC 6145)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [last32]; // NAT64 well-known prefix (RFC 6052)
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return 'local-use NAT64 address'; // RFC 8215: local by definition
  // The rest of ::/8 is reserved; there, odd spellings of the forms above could slip through.
  if (p[0] < 0x100) return 'reserved address';
  let outer: Address[] = [address];
  if (p[0] === 0x2002) outer = [ipv4(p[1], p[2])]; // 6to4 (RFC 3056)
  // Teredo (RFC 4380): the server, and the client whose address is stored inverted.
  if (p[0] === 0x2001 && p[1] === 0) outer = [ipv4(p[2], p[3]), ipv4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  // An ISATAP interface id (RFC 5214), under any prefix: the node tunnels to its IPv4 address.
  const isatap = (p[4] & 0xfcff) === 0 && p[5] === 0x5efe;
  return isatap ? [...outer, last32] : outer;
}

function parsePort(text: string, entry: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`Invalid outbound allow-list entry "${entry}": port must be 1-65535`);
  }
  return port;
}

/**
 * Bare IPv4 must be four-part decimal: ipaddr also accepts `8080` or `0x7f.1`
 * as addresses, and a port typed alone must not silently allow 0.0.31.144.
 */
function parseEntryAddress(text: string, entry: string): Address {
  const valid = text.includes(':') ? ipaddr.IPv6.isValid(text) : ipaddr.IPv4.isValidFourPartDecimal(text);
  if (!valid) {
    throw new Error(`Invalid outbound allow-list entry "${entry}": "${text}" is not an IP address`);
  }
  const address = ipaddr.process(text);
  // Such forms are judged by the IPv4 address they carry, so an IPv6 entry for one would never apply.
  const judged = destinations(address);
  if (typeof judged === 'string' || !judged.includes(address)) {
    throw new Error(`Invalid outbound allow-list entry "${entry}": "${text}" carries an IPv4 address or is reserved; list the IPv4 address instead`);
  }
  return address;
}

function parseEntry(entry: string): AllowEntry {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(entry);
  if (bracketed) return hostEntry(parseEntryAddress(bracketed[1], entry), parsePort(bracketed[2], entry));
  const v4WithPort = /^([\d.]+):(\d+)$/.exec(entry);
  if (v4WithPort) return hostEntry(parseEntryAddress(v4WithPort[1], entry), parsePort(v4WithPort[2], entry));
  const slash = entry.indexOf('/');
  if (slash === -1) return hostEntry(parseEntryAddress(entry, entry));

  const network = parseEntryAddress(entry.slice(0, slash), entry);
  // ipaddr.process turned a mapped network into IPv4; its /104 would be meaningless there.
  if (network.kind() === 'ipv4' && entry.includes(':')) {
    throw new Error(`Invalid outbound allow-list entry "${entry}": write IPv4-mapped networks in IPv4 form`);
  }
  const bitsText = entry.slice(slash + 1);
  const bits = Number(bitsText);
  const maxBits = network.kind() === 'ipv4' ? 32 : 128;
  if (!/^\d+$/.test(bitsText) || bits > maxBits) {
    throw new Error(`Invalid outbound allow-list entry "${entry}": prefix length must be 0-${maxBits}`);
  }
  return { network, bits };
}

function hostEntry(network: Address, port?: number): AllowEntry {
  return { network, bits: network.kind() === 'ipv4' ? 32 : 128, port };
}

/**
 * Builds the policy: public unicast addresses pass; anything else passes only
 * when an allow-list entry (IP, CIDR, `ip:port`, `[ipv6]:port`) covers it.
 * An IPv6 form carrying IPv4 addresses passes when each of them passes, so
 * IPv4 entries (with their port) decide for it and IPv6 entries never do.
 * Throws a clear Error naming the first bad entry; blank entries are skipped.
 */
export function createAddressPolicy(allowList: string[]): AddressPolicy {
  const entries = allowList
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map(parseEntry);

  function judge(address: Address, port: number): string | null {
    const reason = nonPublicReason(address);
    if (reason === null) return null;
    const covering = entries.filter((e) => e.network.kind() === address.kind() && address.match(e.network, e.bits));
    if (covering.some((e) => e.port === undefined || e.port === port)) return null;
    // Say so explicitly, or "add it to the allow-list" reads as nonsense when it is there.
    return covering.length > 0 ? `${reason}, not allow-listed on port ${port}` : reason;
  }

  return {
    refusal(ip, port) {
      const address = parseAddress(ip);
      if (!address) return 'not a valid IP address';
      const reached = destinations(address);
      if (typeof reached === 'string') return reached;
      for (const target of reached) {
        const reason = judge(target, port);
        if (reason !== null) return reason;
      }
      return null;
    },
  };
}

/** The destination resolves to a non-public address that is not allow-listed (SSRF guard). */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
}

/**
 * Names the host the step asked for and the kind of range, never the address
 * it resolved to: the message ends up in execution records, and an internal IP
 * there would turn the guard into a way to map the internal network.
 */
function refusedError(host: string, reason: string): OutboundRefused {
  // Read by workflow authors, who cannot change the setting: say who can.
  return new OutboundRefused(`Refused to connect to ${host} (${reason}): address not allowed; an operator can allow it in HTTP_OUTBOUND_ALLOW`);
}

/** Resolves once and returns the IP to connect to, so a second DNS answer (rebinding) cannot slip past the check. */
export async function resolveAllowed(policy: AddressPolicy, hostname: string, port: number): Promise<string> {
  if (isIP(hostname)) {
    const reason = policy.refusal(hostname, port);
    if (reason !== null) throw refusedError(hostname, reason);
    return hostname;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(hostname, { all: true });
  } catch (err) {
    throw new Error(`DNS lookup for ${hostname} failed (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`, { cause: err });
  }
  // Any allowed address will do: we connect to exactly the one we checked.
  const allowed = addresses.find((a) => policy.refusal(a.address, port) === null);
  if (allowed) return allowed.address;
  const first = addresses[0]?.address;
  if (first === undefined) throw new Error(`DNS lookup for ${hostname} returned no addresses`);
  throw refusedError(hostname, policy.refusal(first, port) ?? 'not allowed');
}
