import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

/** Recorded Temporal histories (test/fixtures/histories, see its README): what every change to workflows/ must still replay. */
export const HISTORY_DIR = path.join(__dirname, 'fixtures', 'histories');

/**
 * `historyToJSON` / `historyFromJSON` of @temporalio/common, the format other Temporal tools read and
 * write. In an install where @temporalio/common and @temporalio/proto each got their own protobufjs
 * copy, both throw "type must be a Type" (protojson checks `instanceof Type` against the wrong copy);
 * then the same conversion runs through @temporalio/proto's copy, producing the same JSON.
 */
export const historyJson = {
  stringify(history: History): string {
    try {
      return historyToJSON(history);
    } catch (err) {
      if (!isProtobufCopyMismatch(err)) throw err;
      const { protojson, type, proto } = protoOwnProtojson();
      return JSON.stringify(protojson.toJson(type, proto.temporal.api.history.v1.History.fromObject(history)), null, 2);
    }
  },
  parse(json: unknown): History {
    try {
      return historyFromJSON(json);
    } catch (err) {
      if (!isProtobufCopyMismatch(err)) throw err;
      const { protojson, type } = protoOwnProtojson();
      return protojson.fromJson(type, json, { ignoreUnknownFields: true }) as History;
    }
  },
};

const isProtobufCopyMismatch = (err: unknown) => err instanceof TypeError && err.message === 'type must be a Type';

function protoOwnProtojson() {
  const protoDir = path.dirname(require.resolve('@temporalio/proto/package.json'));
  // A run-time path: the protobufjs copy that @temporalio/proto resolves, which no static import can name.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const protojson = require(require.resolve('protobufjs/ext/protojson', { paths: [protoDir] }));
  // `any`: the generated root's types lack lookupType (as in @temporalio/common's own proto-utils).
  return { protojson, proto, type: (patchProtobufRoot(proto) as any).lookupType('temporal.api.history.v1.History') };
}

export function fixtureFiles(): string[] {
  return fs.existsSync(HISTORY_DIR)
    ? fs
        .readdirSync(HISTORY_DIR)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
}

export function loadFixture(file: string): History {
  return historyJson.parse(JSON.parse(fs.readFileSync(path.join(HISTORY_DIR, file), 'utf8')));
}
