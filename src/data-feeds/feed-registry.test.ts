import { RecordSchemaInput } from '../data-sources/data-sources.schemas';
import { VENDOR_TYPES } from '../connections/types/vendor-types';
import { FEEDS, findFeed } from './feed-registry';

describe('feed registry', () => {
  /** Each feed written out: its key, vendor, connection type and time dimension. */
  const EXPECTED = [
    { key: 'twilio:calls', vendor: 'twilio', connectionType: 'twilio', timeField: 'startTime' },
    { key: 'github:issues', vendor: 'github', connectionType: 'github-oauth', timeField: 'updatedAt' },
    { key: 'hubspot:deals', vendor: 'hubspot', connectionType: 'hubspot-oauth', timeField: 'lastModifiedAt' },
  ];

  it('holds twilio:calls, github:issues and hubspot:deals under their own keys, each on its vendor and connection type', () => {
    expect([...FEEDS.keys()]).toEqual(EXPECTED.map((f) => f.key));
    expect([...FEEDS.values()].map((f) => ({ key: f.key, vendor: f.vendor, connectionType: f.connectionType }))).toEqual(
      EXPECTED.map(({ key, vendor, connectionType }) => ({ key, vendor, connectionType })),
    );
    expect(findFeed('github:issues')?.connectionType).toBe('github-oauth');
    expect(findFeed('custom')).toBeUndefined();
  });

  it.each([...FEEDS.values()])('$key: a valid record schema on an existing connection type', (feed) => {
    expect(RecordSchemaInput.safeParse(feed.recordSchema).error).toBeUndefined();
    expect(VENDOR_TYPES[feed.connectionType]).toBeDefined();
  });

  it('gives each feed a look-back and a deletion strategy', () => {
    expect([...FEEDS.values()].map((f) => [f.key, f.lookbackMinutes, f.deletions.kind])).toEqual([
      ['twilio:calls', 1440, 'listing'],
      ['github:issues', 10, 'keys'],
      ['hubspot:deals', 30, 'keys'],
    ]);
    for (const { deletions } of FEEDS.values()) {
      if (deletions.kind === 'keys') expect(deletions.batchSize).toBeGreaterThan(0);
      else expect(deletions.reconcileWindowDays).toBeGreaterThan(0);
    }
  });

  it('gives each feed one time dimension', () => {
    const timeFields = (f: { recordSchema: { fields: Record<string, { timeDimension?: boolean }> } }) =>
      Object.entries(f.recordSchema.fields)
        .filter(([, d]) => d.timeDimension)
        .map(([name]) => name);
    expect([...FEEDS.values()].map((f) => [f.key, timeFields(f)])).toEqual(EXPECTED.map((f) => [f.key, [f.timeField]]));
  });
});
