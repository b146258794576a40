import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const typesFile = path.join(root, 'console/src/api/schema.gen.ts');

/** What scripts/console-api-types.ts generates from this code's OpenAPI document (run apart: openapi-typescript is ESM-only underneath). */
function generate(): string {
  return execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/console-api-types.ts', '--print'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

// The console's API types are generated (by the console's build, and by `npm test` before the console's typecheck). A
// file that no longer matches the document would let the console typecheck against fields the API renamed or dropped.
describe("the console's API types", () => {
  let fresh: string;
  beforeAll(() => {
    fresh = generate();
  });

  it('are what the current OpenAPI document generates', () => {
    expect(fs.existsSync(typesFile)).toBe(true);
    expect(fs.readFileSync(typesFile, 'utf8')).toBe(fresh);
  });

  it('carry the component schemas the console aliases', () => {
    for (const schema of ['Workflow', 'ExecutionListItem', 'DataStoreTable', 'Dashboard', 'Connection', 'Member']) {
      expect(fresh).toMatch(new RegExp(`^ {8}${schema}: \\{$`, 'm'));
    }
  });
});
