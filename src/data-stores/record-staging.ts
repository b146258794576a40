import type { FieldIssue } from '../errors/errors';
import type { StagedRecord } from './data-stores.repository';
import { MAX_VALUE_BYTES } from './data-stores.schemas';
import { unstorableJson } from '../db/storable-json';

/** The parts of a write that decide what is stored; the key is checked by its schema before. */
export interface RecordWrite {
  key: string;
  value: Record<string, unknown>;
  expiresAt?: string | null;
  ttlSeconds?: number;
  recordTimestamp?: string;
}

/**
 * Turns a schema-valid write into what is stored, checking what the schema
 * cannot: serialized size, what jsonb cannot hold, an expiry in the past. Every
 * writer (API, import, workflow step) passes here. Returns the problems
 * instead when there are any, with paths under `at`.
 */
export function stageRecord(write: RecordWrite, now: Date, at = ''): StagedRecord | FieldIssue[] {
  const issues: FieldIssue[] = [];
  const unstorable = unstorableJson(write.value, fieldPath(at, 'value'));
  // Nothing else is looked at: serializing a value nested too deep would overflow the stack.
  if (unstorable) return [unstorable];
  const valueJson = JSON.stringify(write.value);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no exact count.
  const size = valueJson.length * 3 <= MAX_VALUE_BYTES ? 0 : Buffer.byteLength(valueJson, 'utf8');
  if (size > MAX_VALUE_BYTES) {
    issues.push({ path: fieldPath(at, 'value'), message: `is ${size} bytes serialized; the limit is ${MAX_VALUE_BYTES} bytes` });
  }

  let expiresAt: Date | null = null;
  if (write.ttlSeconds !== undefined) expiresAt = new Date(now.getTime() + write.ttlSeconds * 1000);
  else if (write.expiresAt) {
    expiresAt = new Date(write.expiresAt);
    if (expiresAt <= now) issues.push({ path: fieldPath(at, 'expiresAt'), message: 'must be in the future' });
  }
  if (issues.length) return issues;
  return {
    key: write.key,
    valueJson,
    expiresAt,
    recordTimestamp: write.recordTimestamp ? new Date(write.recordTimestamp) : null,
  };
}

const fieldPath = (at: string, name: string) => (at ? `${at}.${name}` : name);

/** Keys that occur more than once among `keys`, with every index where they occur. */
export function repeatedKeys(keys: string[]): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  keys.forEach((key, index) => seen.set(key, [...(seen.get(key) ?? []), index]));
  return new Map([...seen].filter(([, at]) => at.length > 1));
}
