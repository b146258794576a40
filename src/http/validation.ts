import type { z } from 'zod';
import { FieldIssue, ValidationError } from '../errors/errors';

/** Turns zod issues into field-level details; unknown keys become one issue each. */
export function toFieldIssues(error: z.ZodError, prefix: string[] = []): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const base = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ path: [...base, k].join('.'), message: 'Unknown field' }));
    }
    return [{ path: base.join('.') || '(root)', message: issue.message }];
  });
}

/** Parses `value` or throws one 400 naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ValidationError(`Invalid request ${where}`, toFieldIssues(result.error, where === 'body' ? [] : [where]));
  }
  return result.data;
}
