import fs from 'node:fs';

/**
 * The Chromium the console tests and bench:console drive: CHROMIUM_PATH, or
 * Debian's chromium-headless-shell (scripts/run.mjs installs it: the same
 * renderer as the full browser for far less CPU), or Debian's full chromium.
 */
export const chromiumPath = (): string =>
  process.env.CHROMIUM_PATH ?? (fs.existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');
