import type { WebhookTrigger } from './workflow-model';

/** A shell word: single quotes, a quote inside written as '\'' (the sample input may hold any text). */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The secrets the page is showing right now (just generated, not yet dismissed); absent ones stay placeholders. */
export interface ShownSecrets {
  secret?: string;
  signingSecret?: string;
}

/**
 * A shell command calling the trigger with the workflow's sample input. The bearer secret is the real one while the
 * page shows it (right after it was generated), so the command the person copies works as it stands; otherwise
 * `<secret>`, since the API never answers a stored secret again.
 */
export function curlCommand(trigger: WebhookTrigger, sample: unknown, shown: ShownSecrets = {}): string {
  const lines = [`curl -X ${trigger.method} ${quote(trigger.url)}`];
  if (trigger.authentication) lines.push(`-H ${quote(`Authorization: Bearer ${shown.secret ?? '<secret>'}`)}`);
  if (trigger.method !== 'GET') {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${quote(JSON.stringify(sample ?? {}))}`);
  }
  return lines.join(' \\\n  ');
}

/**
 * `npm run sign-webhook`'s command printing a signed delivery of the sample input to this trigger
 * (src/cli/sign-webhook.ts), with the signing secret filled in while the page shows it; it signs POST deliveries only,
 * so other methods get none.
 */
export function signedCommand(trigger: WebhookTrigger, sample: unknown, shown: ShownSecrets = {}): string | undefined {
  const v = trigger.verification;
  if (!v || trigger.method !== 'POST') return undefined;
  const secret = shown.signingSecret ? quote(shown.signingSecret) : `'<signing secret>'`;
  const args = [`npm run sign-webhook -- --scheme ${v.scheme}`, `--secret ${secret}`, `--url ${quote(trigger.url)}`];
  args.push(`--body ${quote(JSON.stringify(sample ?? {}))}`);
  if (v.scheme === 'hmac') {
    args.push(`--header ${quote(v.header)} --algorithm ${v.algorithm} --encoding ${v.encoding}`);
    if (v.prefix) args.push(`--prefix ${quote(v.prefix)}`);
    if (v.timestampHeader) args.push(`--timestamp-header ${quote(v.timestampHeader)}`);
    if (v.payload) args.push(`--payload ${quote(v.payload)}`);
  }
  return args.join(' \\\n  ');
}
