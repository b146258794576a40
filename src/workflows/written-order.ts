/**
 * `checked`, what a zod schema returned for `sent`, with every object's keys
 * in the order `sent` wrote them, at every depth.
 *
 * Why: a definition comes back as it was written (issue 39), but zod builds
 * each object of a strict schema afresh in the schema's key order. Keys the
 * schema added (defaults such as `initial: {}` or a core.http step's
 * `method: "GET"`) stay, after the written ones: runs read them from the
 * stored definition, so leaving them out would change what a saved workflow
 * does. Keys `sent` has and `checked` lacks (`settings` beside a definition)
 * stay out. Integer-like keys ("200") still come first: JavaScript objects
 * order them so, JSON.parse included.
 */
export function inWrittenOrder<T>(checked: T, sent: unknown): T {
  // Values of z.unknown() (a body, a JSON Schema) come back as the very object sent.
  if (checked === sent) return checked;
  if (Array.isArray(checked)) return (Array.isArray(sent) ? checked.map((value, i) => inWrittenOrder(value, sent[i])) : checked) as T;
  if (!isObject(checked) || !isObject(sent)) return checked;
  const written = Object.keys(sent).filter((key) => Object.hasOwn(checked, key));
  const added = Object.keys(checked).filter((key) => !Object.hasOwn(sent, key));
  // fromEntries defines each key as an own property: a key "__proto__" inside a record stays a key.
  return Object.fromEntries([...written, ...added].map((key) => [key, inWrittenOrder(checked[key], sent[key])])) as T;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
