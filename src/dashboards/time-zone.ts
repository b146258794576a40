/** What an IANA zone name looks like: `UTC`, `Europe/Paris`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * True when `name` is an IANA time zone this process knows. Offsets such as
 * `+02:00`, which newer ICU versions also accept, are refused: a zone follows
 * daylight saving time, an offset does not, and dashboards mean the zone.
 */
export function isIanaTimeZone(name: string): boolean {
  if (name.length > 64 || !IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
