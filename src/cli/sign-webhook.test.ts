import { execFileSync } from 'node:child_process';
import { VerificationConfig } from '../webhooks/signatures/scheme-config';
import { verifyDelivery } from '../webhooks/signatures/verify-delivery';
import { signedCurl, type SignWebhookArgs } from './sign-webhook';

/** The headers, body and URL of a printed command, read back the way a shell would hand them to curl. */
function parseCurl(command: string) {
  const args = command.replace(/^curl /, '').replace(/\\\n/g, ' ');
  const words: string[] = JSON.parse(execFileSync('sh', ['-c', `node -e 'process.stdout.write(JSON.stringify(process.argv.slice(1)))' -- ${args}`]).toString());
  const headers = new Map<string, string>();
  let body = '';
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '-H') {
      const [name, ...value] = words[++i].split(': ');
      headers.set(name.toLowerCase(), value.join(': '));
    } else if (words[i] === '--data-binary') body = words[++i];
  }
  return { headers, body, url: words[words.length - 1] as string };
}

const url = 'https://hooks.example.com/w/@abc123/orders?x=1';

describe('npm run sign-webhook prints a curl command whose delivery verifies', () => {
  const cases: Array<[string, Partial<SignWebhookArgs>, Record<string, unknown>]> = [
    ['stripe', { body: '{"id":"evt_1","note":"it\'s"}' }, { scheme: 'stripe' }],
    ['github', { deliveryId: 'd-1' }, { scheme: 'github' }],
    ['slack', { body: '{"event_id":"Ev1"}' }, { scheme: 'slack' }],
    ['shopify', {}, { scheme: 'shopify' }],
    ['twilio form', { form: true, body: 'From=%2B1555&Body=hi' }, { scheme: 'twilio' }],
    ['twilio json', { body: '{"a":1}' }, { scheme: 'twilio' }],
    [
      'hmac',
      { header: 'X-Sig', algorithm: 'sha512', encoding: 'base64', prefix: 'v1=', timestampHeader: 'X-Ts', deliveryId: 'k-1' },
      { scheme: 'hmac', header: 'X-Sig', algorithm: 'sha512', encoding: 'base64', prefix: 'v1=', timestampHeader: 'X-Ts' },
    ],
  ];

  test.each(cases)('%s', (_name, extra, config) => {
    const scheme = config.scheme as string;
    const command = signedCurl({ scheme, secret: 'a-secret-for-tests', url, ...extra });
    const sent = parseCurl(command);
    const outcome = verifyDelivery(
      VerificationConfig.parse(config),
      ['a-secret-for-tests'],
      { body: Buffer.from(sent.body), header: (n) => sent.headers.get(n.toLowerCase()), url: sent.url, contentType: sent.headers.get('content-type') },
      Date.now(),
    );
    expect(outcome).toEqual({ ok: true });
    if (extra.deliveryId) expect([...sent.headers.values()]).toContain(extra.deliveryId);
  });

  test('a stale timestamp is signed as asked, and bad arguments are named', () => {
    const sent = parseCurl(signedCurl({ scheme: 'stripe', secret: 's3cret-for-tests', url, timestamp: '1000' }));
    expect(sent.headers.get('stripe-signature')).toMatch(/^t=1000,v1=/);
    expect(() => signedCurl({ scheme: 'paypal', secret: 'x', url })).toThrow(/must be one of stripe/);
    expect(() => signedCurl({ scheme: 'hmac', secret: 'x', url })).toThrow(/--header/);
  });
});
