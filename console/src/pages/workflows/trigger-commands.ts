import { signWebhookCommand } from './webhook-verification';
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

/** signWebhookCommand's command, with the signing secret filled in while the page shows it. */
export function signedCommand(trigger: WebhookTrigger, sample: unknown, shown: ShownSecrets = {}): string | undefined {
  const command = signWebhookCommand(trigger, sample);
  return command && shown.signingSecret ? command.replace(`--secret '<signing secret>'`, `--secret ${quote(shown.signingSecret)}`) : command;
}
