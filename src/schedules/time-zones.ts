import { distance } from 'fastest-levenshtein';
import { IANA_ZONE_NAMES } from './iana-zone-names';

let byLowerCase: Map<string, string> | undefined;
function names(): Map<string, string> {
  byLowerCase ??= new Map(IANA_ZONE_NAMES.map((name) => [name.toLowerCase(), name]));
  return byLowerCase;
}

/**
 * The IANA name `zone` stands for, matched without regard to case or
 * surrounding spaces ("europe/paris" is "Europe/Paris", "utc" is "UTC"), or
 * undefined. Links keep their own name (US/Eastern stays US/Eastern), as
 * Temporal shows whatever name it was given. Temporal's own lookup (Go's
 * time.LoadLocation) is case-sensitive, so only the canonical form may reach it.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  return names().get(zone.trim().toLowerCase());
}

/** Why `zone` is no time zone, in words a person can act on: an offset names no place; anything else gets the closest real name. */
export function timeZoneProblem(zone: string): string {
  const shown = JSON.stringify(zone);
  if (/^\s*(utc|gmt)?\s*[+-]\d/i.test(zone)) {
    return `${shown} is an offset, not a time zone: give the IANA zone of the place (such as Europe/Paris), which also follows its daylight saving changes`;
  }
  return `${shown} is not an IANA time zone; did you mean "${closestZone(zone)}"?`;
}

/** The real zone name nearest to `zone`, whole or by its last part ("paris" is nearest "Europe/Paris"). */
export function closestZone(zone: string): string {
  const wanted = zone.trim().toLowerCase().replace(/\s+/g, '_');
  let best = IANA_ZONE_NAMES[0];
  let bestScore = Infinity;
  for (const [lower, name] of names()) {
    const score = Math.min(distance(wanted, lower), distance(wanted, lower.slice(lower.lastIndexOf('/') + 1)));
    if (score < bestScore) [best, bestScore] = [name, score];
  }
  return best;
}
