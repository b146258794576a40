import { sign, verify } from '@octokit/webhooks-methods';
import { createHmac } from 'node:crypto';
import { VerificationConfig } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Octokit's webhooks-methods (what @octokit/webhooks uses) is the oracle.
const config = VerificationConfig.parse({ scheme: 'github' });
const secret = "It's a Secret to Everybody";
const payload = JSON.stringify({ action: 'opened', issue: { title: 'Zeichenkodierung: äöü ✓ 🚀' } });
const now = Date.UTC(2026, 0, 31);

function delivery(signature: string | undefined, body: string | Buffer = payload): SignedDelivery {
  return {
    body: Buffer.from(body),
    header: (name) => (name.toLowerCase() === 'x-hub-signature-256' ? signature : undefined),
    url: 'https://hooks.example.com/w/@o/gh',
  };
}

describe('github scheme', () => {
  test("Octokit's signature verifies", async () => {
    const signature = await sign({ secret, algorithm: 'sha256' }, payload);
    expect(verifyDelivery(config, [secret], delivery(signature), now)).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(await sign(secret, payload)), now)).toEqual({ ok: true });
  });

  test("Octokit's verify accepts what we sign", async () => {
    const headers = signDelivery(config, secret, Buffer.from(payload), {});
    expect(Object.keys(headers)).toEqual(['X-Hub-Signature-256']);
    expect(await verify(secret, payload, headers['X-Hub-Signature-256'])).toBe(true);
  });

  test("GitHub's documented example: the secret and payload of its docs give its signature", () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    const documented = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(verifyDelivery(config, [secret], delivery(documented, 'Hello, World!'), now)).toEqual({ ok: true });
  });

  test('a wrong secret, a changed body, the legacy SHA-1 header value or a missing prefix is refused', async () => {
    const signature = await sign(secret, payload);
    expect(verifyDelivery(config, ['another'], delivery(signature), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [secret], delivery(signature, payload.replace('opened', 'closed')), now)).toEqual({ ok: false, code: 'invalid_signature' });
    const sha1 = `sha1=${createHmac('sha1', secret).update(payload).digest('hex')}`;
    expect(verifyDelivery(config, [secret], delivery(sha1), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [secret], delivery(signature.slice('sha256='.length)), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [secret], delivery(undefined), now)).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('rotation: either of two secrets verifies', async () => {
    const signature = await sign('old secret', payload);
    expect(verifyDelivery(config, ['old secret', secret], delivery(signature), now)).toEqual({ ok: true });
  });
});
