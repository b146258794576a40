/**
 * The built-in data feeds a source can be made from (src/data-feeds/feed-registry.ts), with the connection type
 * each reads through. The API lists no feeds, so they are named here; a feed added to the registry must be added
 * here too to be offered (docs/analytics.md, "Data feeds", lists the same three).
 */
export interface FeedKind {
  key: string;
  title: string;
  connectionType: string;
  /** What a record holds, for the person choosing. */
  holds: string;
}

export const FEED_KINDS: readonly FeedKind[] = [
  { key: 'twilio:calls', title: 'Twilio calls', connectionType: 'twilio', holds: 'one record per call: status, direction, duration, price, recording' },
  {
    key: 'github:issues',
    title: 'GitHub issues and pull requests',
    connectionType: 'github-oauth',
    holds: 'one record per issue or pull request: state, repository, author, comments',
  },
  { key: 'hubspot:deals', title: 'HubSpot deals', connectionType: 'hubspot-oauth', holds: 'one record per deal: amount, stage, pipeline, close date' },
];
