import type { Vendor } from '../config/config';
import type { FeedDefinition } from './feed-definition';
import { githubIssues } from './feeds/github-issues';
import { hubspotDeals } from './feeds/hubspot-deals';
import { twilioCalls } from './feeds/twilio-calls';

/** The built-in data feeds, keyed `<vendor>:<feed>` (a data source's `type`). */
export const FEEDS: ReadonlyMap<string, FeedDefinition> = new Map([twilioCalls, githubIssues, hubspotDeals].map((feed) => [feed.key, feed]));

/** The feed with this key, or undefined (e.g. for `custom` sources). */
export function findFeed(key: string): FeedDefinition | undefined {
  return FEEDS.get(key);
}

export interface FeedSummary {
  key: string;
  vendor: Vendor;
  connectionType: string;
  title: string;
  /** The record schema's field names, the time dimension first. */
  fields: string[];
}

/** What each feed is, for documentation and listings. */
export function listFeeds(): FeedSummary[] {
  return [...FEEDS.values()].map((f) => {
    const names = Object.keys(f.recordSchema.fields);
    const time = names.filter((n) => f.recordSchema.fields[n].timeDimension);
    return {
      key: f.key,
      vendor: f.vendor,
      connectionType: f.connectionType,
      title: f.title,
      fields: [...time, ...names.filter((n) => !time.includes(n))],
    };
  });
}
