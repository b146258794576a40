import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
// 252 = 7 × 36: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 252;
const pool = Buffer.alloc(65536);
let poolOffset = pool.length;

/** One random byte below 252 from a pooled buffer (bulk imports mint a suid per record). */
function randomByte(): number {
  for (;;) {
    if (poolOffset === pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const byte = pool[poolOffset++];
    if (byte < UNBIASED_LIMIT) return byte;
  }
}

/** A short public id (12 lower-case base-36 characters, about 62 bits). */
export function newSuid(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += ALPHABET[randomByte() % 36];
  return out;
}

/**
 * A UUIDv7: time-ordered, so primary-key inserts append to the index instead
 * of landing on random pages (a bulk import of a million records feels it).
 */
export function newId(): string {
  return uuidv7();
}
