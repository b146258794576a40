import Stripe from 'stripe';
import { VerificationConfig } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Stripe's own library is the oracle: what it signs we accept, what we sign it accepts.
const stripe = new Stripe('sk_test_x');
const config = VerificationConfig.parse({ scheme: 'stripe' });
const secret = 'whsec_test_secret_0123456789';
const oldSecret = 'whsec_previous_secret_9876543210';
const payload = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  type: 'payment_intent.succeeded',
  data: { object: { amount: 1999, description: 'Crème brûlée ☕' } },
});
const t = 1_760_000_000;
const at = (seconds: number) => seconds * 1000;

function delivery(signature: string, body: string | Buffer = payload): SignedDelivery {
  return {
    body: Buffer.from(body),
    header: (name) => (name.toLowerCase() === 'stripe-signature' ? signature : undefined),
    url: 'https://hooks.example.com/w/@o/pay',
  };
}

const stripeSigned = (timestamp = t, signingSecret = secret) => stripe.webhooks.generateTestHeaderString({ payload, secret: signingSecret, timestamp });

describe('stripe scheme', () => {
  test("a header from Stripe's generateTestHeaderString verifies", () => {
    expect(verifyDelivery(config, [secret], delivery(stripeSigned()), at(t + 5))).toEqual({ ok: true });
  });

  test("Stripe's constructEvent accepts what we sign", () => {
    const headers = signDelivery(config, secret, Buffer.from(payload), { timestampSeconds: t });
    expect(Object.keys(headers)).toEqual(['Stripe-Signature']);
    expect(headers['Stripe-Signature']).toBe(stripeSigned());
    const event = stripe.webhooks.constructEvent(payload, headers['Stripe-Signature'], secret, 300, undefined, at(t + 10));
    expect(event.id).toBe('evt_1');
  });

  test('a delivery signed 301 s ago is out of tolerance, 300 s ago is not; the same holds into the future', () => {
    expect(verifyDelivery(config, [secret], delivery(stripeSigned()), at(t + 300))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(stripeSigned()), at(t + 301))).toEqual({ ok: false, code: 'timestamp_out_of_tolerance' });
    expect(verifyDelivery(config, [secret], delivery(stripeSigned()), at(t - 301))).toEqual({ ok: false, code: 'timestamp_out_of_tolerance' });
    const lenient = VerificationConfig.parse({ scheme: 'stripe', toleranceSeconds: 3600 });
    expect(verifyDelivery(lenient, [secret], delivery(stripeSigned()), at(t + 3600))).toEqual({ ok: true });
  });

  test('a wrong secret is an invalid signature, stale or not: only a genuine delivery learns it is late', () => {
    expect(verifyDelivery(config, ['whsec_other'], delivery(stripeSigned()), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, ['whsec_other'], delivery(stripeSigned()), at(t + 10_000))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [], delivery(stripeSigned()), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('rotation: a header with two v1 verifies with either secret, and either secret of ours verifies a single v1', () => {
    const v1 = (header: string) => header.split(',')[1];
    const both = `t=${t},${v1(stripeSigned(t, oldSecret))},${v1(stripeSigned(t, secret))}`;
    expect(verifyDelivery(config, [secret], delivery(both), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [oldSecret], delivery(both), at(t))).toEqual({ ok: true });
    expect(stripe.webhooks.constructEvent(payload, both, oldSecret, 300, undefined, at(t)).id).toBe('evt_1');
    expect(verifyDelivery(config, [oldSecret, secret], delivery(stripeSigned(t, oldSecret)), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [oldSecret, secret], delivery(stripeSigned(t, secret)), at(t))).toEqual({ ok: true });
  });

  test('v0 signatures are ignored; the v1 must be among the first eight', () => {
    const genuine = stripeSigned().split(',')[1];
    const v0 = `v0=${stripeSigned().split(',')[1].slice(3)}`;
    expect(verifyDelivery(config, [secret], delivery(`t=${t},${v0}`), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    const decoys = Array.from({ length: 7 }, (_, i) => `v1=${String(i).repeat(64)}`);
    expect(verifyDelivery(config, [secret], delivery(`t=${t},${decoys.join(',')},${genuine}`), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(`t=${t},${decoys.join(',')},v1=${'f'.repeat(64)},${genuine}`), at(t))).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
  });

  test('a missing, repeated or non-integer timestamp is an invalid signature, not a late one', () => {
    const genuine = stripeSigned().split(',')[1];
    for (const header of [genuine, `t=${t}.0,${genuine}`, `t=abc,${genuine}`, `t=${t},t=${t},${genuine}`, `t=-${t},${genuine}`, `t=0${t},${genuine}`]) {
      expect(verifyDelivery(config, [secret], delivery(header), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    }
  });

  test('the body is covered byte for byte', () => {
    expect(verifyDelivery(config, [secret], delivery(stripeSigned(), payload.replace('1999', '1998')), at(t))).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(verifyDelivery(config, [secret], delivery(stripeSigned(), payload + '\n'), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });
});
