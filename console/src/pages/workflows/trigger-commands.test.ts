import { curlCommand, signedCommand } from './trigger-commands';
import type { WebhookTrigger } from './workflow-model';

const trigger = (over: Partial<WebhookTrigger> = {}) =>
  ({ id: 'wt_1', name: 'orders', method: 'POST', url: 'https://flow.example/w/abc', authentication: true, verification: null, ...over }) as WebhookTrigger;

describe('curlCommand', () => {
  test('carries the bearer secret while it is shown, and the placeholder otherwise', () => {
    expect(curlCommand(trigger(), { customer: 'Ada' }, { secret: 'whs_real' })).toBe(
      [
        `curl -X POST 'https://flow.example/w/abc'`,
        `-H 'Authorization: Bearer whs_real'`,
        `-H 'Content-Type: application/json'`,
        `-d '{"customer":"Ada"}'`,
      ].join(' \\\n  '),
    );
    expect(curlCommand(trigger(), {})).toContain(`-H 'Authorization: Bearer <secret>'`);
    // A shown signing secret is not the bearer secret.
    expect(curlCommand(trigger(), {}, { signingSecret: 'sig' })).toContain('Bearer <secret>');
  });

  test('quotes a sample input holding a single quote, and sends no header for a trigger without a secret', () => {
    const command = curlCommand(trigger({ authentication: false }), { note: "it's" }, { secret: 'whs_real' });
    expect(command).not.toContain('Authorization');
    expect(command).toContain(`-d '{"note":"it'\\''s"}'`);
  });
});

describe('signedCommand', () => {
  test('carries the signing secret while it is shown', () => {
    const github = trigger({ authentication: false, verification: { scheme: 'github' } as WebhookTrigger['verification'] });
    expect(signedCommand(github, {})).toContain(`--secret '<signing secret>'`);
    expect(signedCommand(github, {}, { signingSecret: 'gh_sig' })).toContain(`--secret 'gh_sig'`);
  });
});
