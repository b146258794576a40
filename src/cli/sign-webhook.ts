import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DELIVERY_ID_PRESETS, IDEMPOTENCY_KEY_HEADER } from '../webhooks/delivery-ids';
import { VERIFICATION_SCHEMES, VerificationConfig } from '../webhooks/signatures/scheme-config';
import { signDelivery } from '../webhooks/signatures/sign-delivery';
import { twilioUrlWithBodyHash } from '../webhooks/signatures/twilio-signing-input';

const USAGE = `usage: npm run sign-webhook -- --scheme <${VERIFICATION_SCHEMES.join('|')}> --url <trigger URL> [--secret <signing secret>] [options]

Prints a curl command that sends a delivery signed as the vendor would sign
it, for trying a verified trigger by hand. The secret may come from the
SIGNING_SECRET environment variable instead of --secret, which keeps it out
of the process list and the shell's history.

  --body <text>          the body, sent byte for byte (default {})
  --body-file <path>     the body from a file, byte for byte
  --form                 send it as application/x-www-form-urlencoded (Twilio's and Slack's commands)
  --delivery-id <id>     the delivery's id where the scheme's preset reads it (a header; for stripe and
                         slack put it in the body's id / event_id yourself); for hmac, an Idempotency-Key
  --timestamp <seconds>  sign this unix time instead of now (to see a stale delivery refused)
  --method <method>      the trigger's method (default POST)
  hmac only: --header <name> [--algorithm sha256|sha512] [--encoding hex|base64] [--prefix <text>]
             [--timestamp-header <name>] [--payload <layout, e.g. {timestamp}.{body}>]`;

export interface SignWebhookArgs {
  scheme: string;
  secret: string;
  url: string;
  body?: string;
  bodyFile?: string;
  form?: boolean;
  deliveryId?: string;
  timestamp?: string;
  method?: string;
  header?: string;
  algorithm?: string;
  encoding?: string;
  prefix?: string;
  timestampHeader?: string;
  payload?: string;
}

/** The curl command for a signed delivery; throws with what is wrong with the arguments. */
export function signedCurl(args: SignWebhookArgs, readFile: (path: string) => Buffer = fs.readFileSync): string {
  const parsed = VerificationConfig.safeParse({
    scheme: args.scheme,
    ...(args.scheme === 'hmac'
      ? {
          header: args.header,
          ...(args.algorithm ? { algorithm: args.algorithm } : {}),
          ...(args.encoding ? { encoding: args.encoding } : {}),
          ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
          ...(args.timestampHeader ? { timestampHeader: args.timestampHeader } : {}),
          ...(args.payload ? { payload: args.payload } : {}),
        }
      : {}),
  });
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `--${i.path.join('.') || 'scheme'}: ${i.message}`).join('\n'));
  }
  const config = parsed.data;
  const body = args.bodyFile ? readFile(args.bodyFile) : Buffer.from(args.body ?? '{}', 'utf8');
  const form = args.form ?? false;
  // Twilio signs the URL: a JSON body travels as its SHA-256 in the query (bodySHA256), a form as its fields.
  const url = config.scheme === 'twilio' && !form ? twilioUrlWithBodyHash(args.url, body) : args.url;
  const timestampSeconds = args.timestamp === undefined ? undefined : Number(args.timestamp);
  const headers: Record<string, string> = {
    'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json',
    ...signDelivery(config, args.secret, body, { url, timestampSeconds }),
  };
  const idHeader = config.scheme === 'hmac' ? IDEMPOTENCY_KEY_HEADER : deliveryHeader(config.scheme);
  if (idHeader) headers[idHeader] = args.deliveryId ?? randomUUID();
  return [
    `curl --fail-with-body -sS -i -X ${quote((args.method ?? 'POST').toUpperCase())}`,
    ...Object.entries(headers).map(([name, value]) => `  -H ${quote(`${name}: ${value}`)}`),
    `  --data-binary ${args.bodyFile ? quote(`@${args.bodyFile}`) : quote(body.toString('utf8'))}`,
    `  ${quote(url)}`,
  ].join(' \\\n');
}

function deliveryHeader(scheme: string): string | undefined {
  const preset = DELIVERY_ID_PRESETS[scheme as keyof typeof DELIVERY_ID_PRESETS];
  return preset && 'header' in preset ? preset.header : undefined;
}

/** A POSIX shell single-quoted word. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function main(): void {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        scheme: { type: 'string' },
        secret: { type: 'string' },
        url: { type: 'string' },
        body: { type: 'string' },
        'body-file': { type: 'string' },
        form: { type: 'boolean' },
        'delivery-id': { type: 'string' },
        timestamp: { type: 'string' },
        method: { type: 'string' },
        header: { type: 'string' },
        algorithm: { type: 'string' },
        encoding: { type: 'string' },
        prefix: { type: 'string' },
        'timestamp-header': { type: 'string' },
        payload: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const secret = (values.secret as string | undefined) ?? process.env.SIGNING_SECRET;
  if (values.help || !values.scheme || !secret || !values.url) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const text = (name: string) => values[name] as string | undefined;
  try {
    const command = signedCurl({
      scheme: text('scheme')!,
      secret: secret!,
      url: text('url')!,
      body: text('body'),
      bodyFile: text('body-file'),
      form: values.form === true,
      deliveryId: text('delivery-id'),
      timestamp: text('timestamp'),
      method: text('method'),
      header: text('header'),
      algorithm: text('algorithm'),
      encoding: text('encoding'),
      prefix: text('prefix'),
      timestampHeader: text('timestamp-header'),
      payload: text('payload'),
    });
    console.log(command);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}

if (require.main === module) main();
