import type { RateLimit } from '../config/config';
import { TooManyRequestsError } from '../errors/errors';

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets kept at most; past it, the ones that have refilled (and so hold nothing to remember) are dropped. */
const MAX_BUCKETS = 100_000;

/**
 * Token buckets of one kind (per trigger, or per organization): `burst`
 * calls at once, refilled at `rate` per second. In memory, per API process:
 * with N API processes behind a balancer a caller gets up to N times the rate.
 */
class Buckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limit: RateLimit) {}

  /** Tokens the key holds now (refilled since its last call). */
  available(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.rate);
  }

  take(key: string, now: number): void {
    const tokens = this.available(key, now) - 1;
    // Re-inserted, so the map's order is least recently used first.
    this.buckets.delete(key);
    if (this.buckets.size >= MAX_BUCKETS) this.evict(now);
    this.buckets.set(key, { tokens, at: now });
  }

  /** Seconds until the key holds a whole token again. */
  waitSeconds(key: string, now: number): number {
    return (1 - this.available(key, now)) / this.limit.rate;
  }

  /**
   * Makes room for a tenth of the buckets at once, so the scan is paid once
   * per many new keys: the least recently used go first, and of them only
   * those that have refilled (they remember nothing a new bucket would not),
   * unless none has, when the oldest go anyway.
   */
  private evict(now: number): void {
    const target = MAX_BUCKETS - MAX_BUCKETS / 10;
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) return;
      if (this.available(key, now) >= this.limit.burst) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) return;
      this.buckets.delete(key);
    }
  }
}

/**
 * How fast webhook calls may start runs: per trigger and per organization.
 * A call takes a token from both buckets or from neither, so a refused call
 * costs the caller nothing and starts nothing; it is answered 429 with the
 * seconds to wait in `Retry-After`.
 */
export class WebhookRateLimiter {
  private readonly triggers: Buckets;
  private readonly organizations: Buckets;

  constructor(
    limits: { perTrigger: RateLimit; perOrganization: RateLimit },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.triggers = new Buckets(limits.perTrigger);
    this.organizations = new Buckets(limits.perOrganization);
  }

  /** Takes one call's tokens, or throws 429 `rate_limited`. */
  take(organizationId: string, triggerId: string): void {
    const now = this.now();
    const trigger = this.triggers.available(triggerId, now) >= 1;
    const organization = this.organizations.available(organizationId, now) >= 1;
    if (trigger && organization) {
      this.triggers.take(triggerId, now);
      this.organizations.take(organizationId, now);
      return;
    }
    const wait = Math.max(trigger ? 0 : this.triggers.waitSeconds(triggerId, now), organization ? 0 : this.organizations.waitSeconds(organizationId, now));
    throw new TooManyRequestsError(
      `Too many calls to this ${trigger ? "organization's webhooks" : 'webhook'}; try again in a moment`,
      'rate_limited',
      Math.max(1, Math.ceil(wait)),
    );
  }
}
