/**
 * Why PostgreSQL's jsonb would not store `value` faithfully, with the path of
 * the offending part (`value.items.2.name`), or undefined when it would.
 * JSON.stringify turns Infinity and NaN into null without a word, and jsonb
 * refuses the NUL character in strings and field names.
 */
export function unstorableJson(value: unknown, path: string): { path: string; message: string } | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, message: 'numbers must be finite' };
  if (typeof value === 'string') return value.includes('\u0000') ? { path, message: 'must not contain the NUL character (\\u0000)' } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = unstorableJson(value[i], `${path}.${i}`);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return { path, message: 'field names must not contain the NUL character (\\u0000)' };
    const problem = unstorableJson(item, `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}
