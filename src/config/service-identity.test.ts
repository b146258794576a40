import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_USER_AGENT, SERVICE_VERSION } from './service-identity';

describe('service identity', () => {
  it('carries the version package.json declares', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(SERVICE_VERSION).toBe(pkg.version);
    expect(SERVICE_USER_AGENT).toMatch(new RegExp(`^Flowbase/${pkg.version.replace(/\./g, '\\.')} `));
  });
});
