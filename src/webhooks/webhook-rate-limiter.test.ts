import { TooManyRequestsError } from '../errors/errors';
import { WebhookRateLimiter } from './webhook-rate-limiter';

function limiter(perTrigger = { rate: 2, burst: 3 }, perOrganization = { rate: 5, burst: 5 }) {
  const clock = { now: 0 };
  return { clock, limiter: new WebhookRateLimiter({ perTrigger, perOrganization }, () => clock.now) };
}

const refused = (take: () => void): TooManyRequestsError => {
  try {
    take();
  } catch (err) {
    if (err instanceof TooManyRequestsError) return err;
    throw err;
  }
  throw new Error('expected 429');
};

describe('WebhookRateLimiter', () => {
  test('a trigger takes its burst at once, then its rate; Retry-After says when the next token is there', () => {
    const { clock, limiter: l } = limiter();
    for (let i = 0; i < 3; i++) l.take('org', 't1');
    const err = refused(() => l.take('org', 't1'));
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 1 });
    clock.now = 499;
    refused(() => l.take('org', 't1'));
    clock.now = 500; // 2 per second: one token after half a second
    l.take('org', 't1');
    refused(() => l.take('org', 't1'));
  });

  test('the organization bucket spans its triggers; a refused call takes nothing from either bucket', () => {
    const { clock, limiter: l } = limiter({ rate: 1, burst: 3 }, { rate: 1, burst: 4 });
    l.take('org', 'a');
    l.take('org', 'a');
    l.take('org', 'a');
    refused(() => l.take('org', 'a')); // trigger a is empty; the organization still has one
    l.take('org', 'b'); // so b gets it
    const err = refused(() => l.take('org', 'c'));
    expect(err.message).toMatch(/organization/);
    expect(err.retryAfterSeconds).toBe(1);
    // Another organization is not affected.
    l.take('other', 'x');
    clock.now = 1_000;
    l.take('org', 'c');
  });

  test('a slow refill rounds Retry-After up to whole seconds', () => {
    const { limiter: l } = limiter({ rate: 0.1, burst: 1 });
    l.take('org', 't');
    expect(refused(() => l.take('org', 't')).retryAfterSeconds).toBe(10);
  });
});
