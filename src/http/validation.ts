import type { z } from 'zod';
import { type FieldIssue, ValidationError } from '../errors/errors';

type Issue = z.core.$ZodIssue;

/**
 * Turns zod issues into field-level details; unknown keys become one issue
 * each. A failed union reports the alternative the input came closest to
 * (fewest problems) instead of zod's bare "Invalid input", and a refused
 * record key says what its schema wants. Other messages are worded by
 * src/openapi/zod-messages.ts or by the schema itself.
 */
export function toFieldIssues(error: { issues: readonly Issue[] }, prefix: string[] = []): FieldIssue[] {
  const details: FieldIssue[] = [];
  for (const issue of error.issues) {
    details.push(...issueDetails(issue, prefix));
    if (details.length > MAX_FIELD_ISSUES) break;
  }
  if (details.length <= MAX_FIELD_ISSUES) return details;
  // 60,000 wrong items of an array are 60,000 issues: an answer of megabytes that says nothing the first ones do not.
  return [...details.slice(0, MAX_FIELD_ISSUES), { path: '(more)', message: `more problems like these were not listed (the first ${MAX_FIELD_ISSUES} are)` }];
}

/** The most field details one answer lists. */
export const MAX_FIELD_ISSUES = 100;

function issueDetails(issue: Issue, prefix: string[]): FieldIssue[] {
  const base = [...prefix, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => ({ path: [...base, k].join('.'), message: 'Unknown field' }));
  }
  // A record's key (a variable or value name) refused by the key's own schema: its words, not "Invalid key in record".
  if (issue.code === 'invalid_key' && issue.issues.length > 0) {
    return [{ path: base.join('.') || '(root)', message: `is not an accepted name: ${issue.issues.map((i) => i.message).join('; ')}` }];
  }
  if (issue.code === 'invalid_element' && issue.issues.length > 0) return issue.issues.flatMap((i) => issueDetails(i, base));
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const alternatives = issue.errors.map((branch) => branch.flatMap((i) => issueDetails(i, base)));
    const closest = alternatives.reduce((best, next) => (next.length < best.length ? next : best));
    if (closest.length > 0) return closest;
  }
  return [{ path: base.join('.') || '(root)', message: issue.message }];
}

/** Parses `value` or throws one 400 naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ValidationError(`Invalid request ${where}`, toFieldIssues(result.error, where === 'body' ? [] : [where]));
  }
  return result.data;
}
