import { randomInt, randomUUID } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A short public id (12 lower-case base-36 characters, about 62 bits). */
export function newSuid(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function newId(): string {
  return randomUUID();
}
