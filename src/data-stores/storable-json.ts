/**
 * Why PostgreSQL's jsonb would not store `value` faithfully, with the path of
 * the offending part (`value.items.2.name`), or undefined when it would.
 * JSON.stringify turns Infinity and NaN into null without a word, and jsonb
 * refuses the NUL character and unpaired surrogates (valid JSON escapes that
 * are not characters) in strings and field names.
 */
export function unstorableJson(value: unknown, path: string): { path: string; message: string } | undefined {
  const problem = findProblem(value);
  return problem && { path: [path, ...problem.at].filter((p) => p !== '').join('.'), message: problem.message };
}

type Problem = { at: string[]; message: string };

// Runs on every record of an import: no allocation until something is wrong.
function findProblem(value: unknown): Problem | undefined {
  if (typeof value === 'string') return textProblem(value);
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { at: [], message: 'numbers must be finite' };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = findProblem(value[i]);
      if (problem) return prefixed(String(i), problem);
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const keyProblem = textProblem(key);
    if (keyProblem) return { at: [], message: `field names: ${keyProblem.message}` };
    const problem = findProblem((value as Record<string, unknown>)[key]);
    if (problem) return prefixed(key, problem);
  }
  return undefined;
}

function prefixed(segment: string, problem: Problem): Problem {
  problem.at.unshift(segment);
  return problem;
}

function textProblem(text: string): Problem | undefined {
  if (text.includes('\u0000')) return { at: [], message: 'must not contain the NUL character (\\u0000)' };
  if (!text.isWellFormed()) return { at: [], message: 'must not contain an unpaired surrogate (an escape such as \\ud800 that is no character)' };
  return undefined;
}
