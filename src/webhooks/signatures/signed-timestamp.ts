// Unix seconds as senders write them: digits only, no sign, no leading zero, no fraction.
// Twelve digits reach the year 33658; more is garbage, and Number() stays exact.
const UNIX_SECONDS = /^(?:0|[1-9][0-9]{0,11})$/;

/** A timestamp header's value as unix seconds, or undefined when it is not a whole number of seconds. */
export function parseUnixSeconds(text: string | undefined): number | undefined {
  return text !== undefined && UNIX_SECONDS.test(text) ? Number(text) : undefined;
}

/**
 * Whether a signed timestamp is within tolerance of our clock. Both directions
 * count: Stripe's and Slack's libraries refuse only old timestamps, but a
 * timestamp far in the future would let a captured delivery be replayed until then.
 */
export function withinTolerance(timestampSeconds: number, nowMs: number, toleranceSeconds: number): boolean {
  return Math.abs(Math.floor(nowMs / 1000) - timestampSeconds) <= toleranceSeconds;
}

/** Now, in unix seconds, when a signer is not given a time. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
