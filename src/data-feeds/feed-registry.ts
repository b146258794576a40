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
