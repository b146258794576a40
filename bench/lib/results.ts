import fs from 'node:fs';
import path from 'node:path';

/** Writes a benchmark's figures to bench-results/<name>-<time>.json and answers that path. */
export function saveResults(name: string, results: unknown): string {
  fs.mkdirSync('bench-results', { recursive: true });
  const out = path.join('bench-results', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify(results, null, 2));
  return out;
}
