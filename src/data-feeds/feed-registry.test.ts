import { RecordSchemaInput } from '../data-sources/data-sources.schemas';
import { VENDOR_TYPES } from '../connections/types/vendor-types';
import { timeField } from '../data-sources/serving-relation';
import { FEEDS, findFeed } from './feed-registry';

describe('feed registry', () => {
  it('holds twilio:calls, github:issues and hubspot:deals under their own keys', () => {
    expect([...FEEDS.keys()]).toEqual(['twilio:calls', 'github:issues', 'hubspot:deals']);
    for (const [key, feed] of FEEDS) expect(feed.key).toBe(key);
    expect(findFeed('github:issues')?.connectionType).toBe('github-oauth');
    expect(findFeed('custom')).toBeUndefined();
  });

  it.each([...FEEDS.values()])('$key: a valid record schema on an existing connection type, its vendor in its key', (feed) => {
    expect(RecordSchemaInput.safeParse(feed.recordSchema).error).toBeUndefined();
    expect(VENDOR_TYPES[feed.connectionType]).toBeDefined();
    expect(feed.key.startsWith(`${feed.vendor}:`)).toBe(true);
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

  it('gives each feed its time dimension', () => {
    expect([...FEEDS.values()].map((f) => [f.key, timeField(f.recordSchema)])).toEqual([
      ['twilio:calls', 'startTime'],
      ['github:issues', 'updatedAt'],
      ['hubspot:deals', 'lastModifiedAt'],
    ]);
  });
});
