import { replaceUnstorableText } from '../db/storable-json';

/** The one test of a form body, shared by the parser and Twilio's signature (which signs a form's fields): the two must never disagree. */
export function isFormContentType(contentType: string | undefined): boolean {
  return /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(contentType ?? '');
}

/** A form as `initial`: each field a string, a repeated one an array of them. */
export function parseFormBody(raw: Buffer): Record<string, unknown> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
    const seen = fields.get(name);
    if (seen === undefined) fields.set(name, value);
    else if (Array.isArray(seen)) seen.push(value);
    else fields.set(name, [seen, value]);
  }
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return replaceUnstorableText(Object.fromEntries(fields));
}
