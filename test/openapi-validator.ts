import { execFile } from 'node:child_process';
import path from 'node:path';

/** What @seriousme/openapi-schema-validator says of a document: its OpenAPI version ("3.1") when valid, its errors when not. */
export interface OpenApiVerdict {
  valid: boolean;
  version?: string;
  errors?: unknown;
}

// The validator is an ES module only, which Jest's CommonJS runtime cannot load: it runs in a child Node process.
const SCRIPT = `
import { Validator } from '@seriousme/openapi-schema-validator';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors }));
`;

/**
 * Validates `doc` against the official OpenAPI schema of the version it
 * declares (3.1 included: JSON Schema 2020-12 and the 3.1 meta-schemas),
 * with @seriousme/openapi-schema-validator.
 */
export function validateOpenApi(doc: unknown): Promise<OpenApiVerdict> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT],
      { cwd: path.resolve(__dirname, '..'), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as OpenApiVerdict)),
    );
    child.stdin!.end(JSON.stringify(doc));
  });
}
