import type { ErrorObject } from 'ajv';
import type { FieldIssue } from './errors';

/** ajv errors as field issues under `root` (`config`, `payload`), without echoing any submitted value. */
export function ajvIssues(errors: ErrorObject[], root: string): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const e of errors) {
    const base = [root, ...e.instancePath.split('/').filter(Boolean)];
    let path = base.join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path = [...base, e.params.missingProperty].join('.');
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path = [...base, e.params.additionalProperty].join('.');
      message = 'Unknown field';
    } else if (e.keyword === 'discriminator') {
      path = [...base, e.params.tag].join('.');
      message = e.params.error === 'mapping' ? 'Unknown variant' : 'is required: a string naming the variant';
    }
    const key = `${path}:${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ path, message });
    }
  }
  return issues;
}
