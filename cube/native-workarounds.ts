import fs from 'node:fs';
import path from 'node:path';
import { ApiGateway } from '@cubejs-backend/api-gateway';
import { CompilerApi } from '@cubejs-backend/server-core/dist/src/core/CompilerApi';

/**
 * Cube's Rust module (`@cubejs-backend/native`) is installed by a script
 * that downloads a binary from outside the package registry, which these
 * machines cannot reach. Without it, two pieces of Cube 0.35 fail to start:
 * the Jinja engine (used only by YAML/Python models, which this service
 * never writes) and the Postgres-wire SQL API (which this service does not
 * serve). They are kept out of the way here, and only when the module is
 * missing; everything this service uses runs in JavaScript.
 */
export function applyCubeNativeWorkarounds(): void {
  const nativeDir = path.dirname(require.resolve('@cubejs-backend/native/package.json'));
  const hasNative = ['index.node', 'native/index.node'].some((f) => fs.existsSync(path.join(nativeDir, f)));
  if (hasNative) return;
  const noJinja = () => {
    throw new Error('YAML and Jinja data models need @cubejs-backend/native');
  };
  (CompilerApi.prototype as unknown as { createNativeInstance: () => unknown }).createNativeInstance = () => ({
    newJinjaEngine: () => ({ renderTemplate: noJinja }),
  });
  (ApiGateway.prototype as unknown as { createSQLServerInstance: () => unknown }).createSQLServerInstance = () => undefined;
}
