/**
 * Why PostgreSQL's jsonb would not store `value` faithfully, with the path of
 * the offending part (`value.items.2.name`), or undefined when it would.
 * JSON.stringify turns Infinity and NaN into null without a word, and jsonb
 * refuses the NUL character and unpaired surrogates (valid JSON escapes that
 * are not characters) in strings and field names.
 */
export function unstorableJson(value: unknown, path: string): { path: string; message: string } | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, message: 'numbers must be finite' };
  if (typeof value === 'string') return textProblem(value, path);
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = unstorableJson(value[i], `${path}.${i}`);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = textProblem(key, path);
    if (keyProblem) return { path, message: `field names: ${keyProblem.message}` };
    const problem = unstorableJson(item, `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

function textProblem(text: string, path: string): { path: string; message: string } | undefined {
  if (text.includes('\u0000')) return { path, message: 'must not contain the NUL character (\\u0000)' };
  if (!text.isWellFormed()) return { path, message: 'must not contain an unpaired surrogate (an escape such as \\ud800 that is no character)' };
  return undefined;
}
