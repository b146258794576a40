/**
 * The analytics benchmark's data set: N sale records, generated the same in
 * every run (no randomness), so figures of different runs compare.
 */

export const CITIES = Array.from({ length: 50 }, (_, i) => `City ${String(i).padStart(2, '0')}`);
export const CATEGORIES = Array.from({ length: 10 }, (_, i) => `category-${i}`);
export const YEAR_MS = 365 * 86_400_000;

/** A deterministic number in [0, 1) for record i (an integer hash), so every run loads the same values. */
function unit(i: number, salt: number): number {
  let h = Math.imul(i ^ Math.imul(salt, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export interface Sale {
  key: string;
  value: { amount: number; city: string; category: string; at: string };
}

/**
 * Record i of `records`: amount 0–1000, one of 50 cities (skewed, so a top 10
 * means something), one of 10 categories, and a time in the 365 days before
 * `now`. Slots are 365 days / N apart: more than a second for N up to 31.5
 * million, so every record has a second of its own.
 */
export function salesData(records: number): { record(i: number, now: number): Sale } {
  const keyDigits = Math.max(7, String(records).length);
  // Coprime with the record count: i * step mod records visits every time slot once, in an order unrelated to the keys.
  let step = 7919;
  while (gcd(step, records) !== 1) step++;
  return {
    record(i, now) {
      const slot = (i * step) % records;
      return {
        key: `rec:${String(i).padStart(keyDigits, '0')}`,
        value: {
          amount: Math.round(unit(i, 1) * 100_000) / 100,
          city: CITIES[Math.floor(unit(i, 2) ** 2 * CITIES.length)],
          category: CATEGORIES[Math.floor(unit(i, 3) * CATEGORIES.length)],
          at: new Date(now - Math.floor((slot + 0.5) * (YEAR_MS / records))).toISOString(),
        },
      };
    },
  };
}
