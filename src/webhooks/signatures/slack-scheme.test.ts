import { createHmac } from 'node:crypto';
import { VerificationConfig } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Slack's own worked example is the oracle, both ways. @slack/bolt was meant to be one too, but it left the
// devDependencies (its @types/ms broke Temporal's Duration types), so its verifySlackRequest cannot run here.
const config = VerificationConfig.parse({ scheme: 'slack' });
const signingSecret = '8f742231b10e8888abcd99yyyzzz85a5';
const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fweather&text=M%C3%BCnchen+%E2%98%82';
const t = 1_760_000_000;
const at = (seconds: number) => seconds * 1000;

function delivery(headers: Record<string, string | undefined>, payload: string = body): SignedDelivery {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { body: Buffer.from(payload), header: (name) => lower.get(name.toLowerCase()), url: 'https://hooks.example.com/w/@o/slack' };
}

// https://api.slack.com/authentication/verifying-requests-from-slack: "v0=" + hex HMAC-SHA256 of "v0:<timestamp>:<body>".
const slackSigned = (timestamp: number, payload = body, secret = signingSecret) => ({
  'X-Slack-Request-Timestamp': String(timestamp),
  'X-Slack-Signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${payload}`).digest('hex')}`,
});

describe('slack scheme', () => {
  test("Slack's documented example: we verify its signature, and signing its request gives that very signature", () => {
    // https://api.slack.com/authentication/verifying-requests-from-slack: the walkthrough's secret, timestamp, body and signature.
    const documentedBody =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
      '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const documented = {
      'X-Slack-Request-Timestamp': '1531420618',
      'X-Slack-Signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    expect(verifyDelivery(config, [signingSecret], delivery(documented, documentedBody), at(1531420618 + 1))).toEqual({ ok: true });
    expect(signDelivery(config, signingSecret, Buffer.from(documentedBody), { timestampSeconds: 1531420618 })).toEqual(documented);
  });

  test('a signature computed by hand from the recipe verifies; another secret or body does not', () => {
    expect(verifyDelivery(config, [signingSecret], delivery(slackSigned(t)), at(t))).toEqual({ ok: true });
    expect(signDelivery(config, signingSecret, Buffer.from(body), { timestampSeconds: t })).toEqual(slackSigned(t));
    expect(verifyDelivery(config, ['other', signingSecret], delivery(slackSigned(t)), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, ['other'], delivery(slackSigned(t)), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [signingSecret], delivery(slackSigned(t), body.replace('weather', 'whether')), at(t))).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
  });

  test('the timestamp is signed: moving it breaks the signature, and a genuine stale one is out of tolerance', () => {
    const moved = { ...slackSigned(t), 'X-Slack-Request-Timestamp': String(t + 1) };
    expect(verifyDelivery(config, [signingSecret], delivery(moved), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [signingSecret], delivery(slackSigned(t)), at(t + 301))).toEqual({ ok: false, code: 'timestamp_out_of_tolerance' });
    expect(verifyDelivery(config, [signingSecret], delivery(slackSigned(t)), at(t + 300))).toEqual({ ok: true });
  });

  test('a missing or non-integer timestamp, or a signature of another version, is an invalid signature', () => {
    const signed = slackSigned(t);
    const cases = [
      { 'X-Slack-Signature': signed['X-Slack-Signature'] },
      { ...signed, 'X-Slack-Request-Timestamp': `${t}.5` },
      { ...signed, 'X-Slack-Request-Timestamp': ' ' },
      { ...signed, 'X-Slack-Signature': signed['X-Slack-Signature'].replace('v0=', 'v1=') },
      { ...signed, 'X-Slack-Signature': undefined },
    ];
    for (const headers of cases) expect(verifyDelivery(config, [signingSecret], delivery(headers), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });
});
