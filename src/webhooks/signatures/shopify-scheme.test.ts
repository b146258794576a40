import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { getHmac } from '@shopify/shopify-api/test-helpers';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { VerificationConfig } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Shopify's app library is the oracle: its webhooks.validate must accept what we sign. It reads the
// request through its node adapter (headers, method, url of an IncomingMessage), so a bare
// IncomingMessage on an unconnected socket is all it takes; the response is not touched.
const apiSecretKey = 'shpss_0123456789abcdef0123456789abcdef';
const latest = Object.values(ApiVersion)
  .filter((version) => version !== ApiVersion.Unstable)
  .sort()
  .at(-1)!;
const shopify = shopifyApi({
  apiSecretKey,
  apiKey: 'api-key',
  apiVersion: latest,
  hostName: 'app.example.com',
  isEmbeddedApp: false,
  logger: { level: LogSeverity.Error, log: async () => {} },
});
const config = VerificationConfig.parse({ scheme: 'shopify' });
const payload = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', note: 'Größe: XL — 🎁' });
const now = Date.UTC(2026, 0, 31);

function shopifyRequest(headers: Record<string, string>) {
  const request = new IncomingMessage(new Socket());
  request.method = 'POST';
  request.url = '/webhooks/orders-create';
  request.headers = {
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': 'shop.myshopify.com',
    'x-shopify-api-version': latest,
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
  };
  return { rawRequest: request, rawResponse: new ServerResponse(request) };
}

function delivery(hmac: string | undefined, body: string | Buffer = payload): SignedDelivery {
  return {
    body: Buffer.from(body),
    header: (name) => (name.toLowerCase() === 'x-shopify-hmac-sha256' ? hmac : undefined),
    url: 'https://hooks.example.com/w/@o/shop',
  };
}

describe('shopify scheme', () => {
  test("Shopify's webhooks.validate accepts what we sign", async () => {
    const headers = signDelivery(config, apiSecretKey, Buffer.from(payload), {});
    expect(Object.keys(headers)).toEqual(['X-Shopify-Hmac-Sha256']);
    const result = await shopify.webhooks.validate({ rawBody: payload, ...shopifyRequest(headers) });
    expect(result).toMatchObject({ valid: true, topic: 'ORDERS_CREATE', domain: 'shop.myshopify.com' });
    // The oracle can refuse: our signature under another secret.
    const forged = signDelivery(config, 'shpss_other', Buffer.from(payload), {});
    expect(await shopify.webhooks.validate({ rawBody: payload, ...shopifyRequest(forged) })).toMatchObject({ valid: false, reason: 'invalid_hmac' });
  });

  test("an HMAC from the library's own test helper (getHmac: base64 HMAC-SHA256 of the body, as Shopify's docs show) verifies", () => {
    const hmac = getHmac(payload, apiSecretKey);
    expect(verifyDelivery(config, [apiSecretKey], delivery(hmac), now)).toEqual({ ok: true });
    expect(verifyDelivery(config, ['old', apiSecretKey], delivery(hmac), now)).toEqual({ ok: true });
  });

  test('another secret, another body, a hex digest or a base64 value with stray characters is refused', () => {
    const [hmac] = Object.values(signDelivery(config, apiSecretKey, Buffer.from(payload), {}));
    expect(verifyDelivery(config, ['shpss_other'], delivery(hmac), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [apiSecretKey], delivery(hmac, payload.replace('XL', 'XS')), now)).toEqual({ ok: false, code: 'invalid_signature' });
    const hex = Buffer.from(hmac, 'base64').toString('hex');
    expect(verifyDelivery(config, [apiSecretKey], delivery(hex), now)).toEqual({ ok: false, code: 'invalid_signature' });
    // Buffer.from(…, 'base64') would skip the stray characters and find the genuine digest.
    expect(verifyDelivery(config, [apiSecretKey], delivery(`${hmac.slice(0, 10)}!*${hmac.slice(10)}`), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [apiSecretKey], delivery(undefined), now)).toEqual({ ok: false, code: 'invalid_signature' });
  });
});
