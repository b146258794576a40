const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.dirname(__dirname);
const RECORD = path.join(__dirname, 'durations.json');

/** Seconds per file, by path from the project root: test/durations.json, or nothing. */
function readRecord() {
  try {
    return JSON.parse(fs.readFileSync(RECORD, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Jest starts the longest files first, so that no worker is left with a long
 * one at the end, knowing their lengths from its cache of the last run. A
 * fresh clone (CI) has no cache, and Jest falls back to file size: the
 * four-line hostile-input parts, each a minute or more, started last. This
 * sequencer falls back to test/durations.json instead, the seconds each file
 * took in a full run, recorded with `RECORD_DURATIONS=1 npx jest` (every file
 * run is written, the others kept). A stale record changes the order, never a
 * result; a file missing from it is started first, as Jest starts one it has
 * never timed.
 */
module.exports = class RecordedDurationSequencer extends Sequencer {
  record = readRecord();

  time(test) {
    const recorded = this.record[path.relative(ROOT, test.path)];
    return super.time(test) ?? (recorded === undefined ? undefined : recorded * 1000);
  }

  cacheResults(tests, results) {
    super.cacheResults(tests, results);
    if (!process.env.RECORD_DURATIONS) return;
    const record = { ...this.record };
    for (const result of results.testResults) {
      const { runtime } = result.perfStats;
      if (!result.skipped && runtime > 0) record[path.relative(ROOT, result.testFilePath)] = Math.round(runtime / 100) / 10;
    }
    for (const file of Object.keys(record)) if (!fs.existsSync(path.join(ROOT, file))) delete record[file];
    const sorted = Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
    fs.writeFileSync(RECORD, `${JSON.stringify(sorted, null, 2)}\n`);
  }
};
