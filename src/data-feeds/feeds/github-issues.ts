import type { FeedDefinition, FeedRecord } from '../feed-definition';
import { unexpectedShape } from '../vendor-errors';
import { checkedCursor, credential, foreignCursor, isoDate, isoSeconds, numberOrNull, stringOrNull, windowMs } from './feed-values';
import { existingIssues, githubHeaders } from './github-graphql';

export const GITHUB_ISSUES_PER_PAGE = 100;

type GithubIssue = Record<string, unknown> & { id: number; node_id?: string; updated_at: string };

/**
 * Issues and pull requests the token's user can see in all their
 * repositories: `GET /issues?filter=all&state=all&since=...&sort=updated&direction=asc`,
 * oldest update first. Records updated at or after the window's end are left
 * for the next window, and paging stops at the first of them.
 *
 * Paging follows the `Link` header's rel="next", except that when the page
 * ended on a later `updated_at` than the request's `since`, the next page is
 * the same list from that `updated_at`, page 1: an issue updated during the
 * sync moves to the end of the list, and plain page numbers would then skip
 * the issue that slid into an already-read page. Issues sharing that
 * timestamp are read again (records upsert by id), and a page all of one
 * timestamp falls back to the Link URL, so paging always advances.
 *
 * The list is by last update, so it cannot show a deletion: a reconciliation
 * asks GraphQL's `nodes(ids:)` which stored issues still resolve
 * (github-graphql.ts).
 */
export const githubIssues: FeedDefinition = {
  key: 'github:issues',
  vendor: 'github',
  connectionType: 'github-oauth',
  title: 'GitHub issues and pull requests',
  recordSchema: {
    name: 'GitHub issues',
    fields: {
      number: { type: 'number', label: 'Number' },
      title: { type: 'string', label: 'Title' },
      state: { type: 'string', label: 'State' },
      repository: { type: 'string', label: 'Repository' },
      author: { type: 'string', label: 'Author' },
      comments: { type: 'number', label: 'Comments', measure: true },
      isPullRequest: { type: 'string', label: 'Pull request (yes/no)' },
      createdAt: { type: 'date', label: 'Created' },
      updatedAt: { type: 'date', label: 'Updated', timeDimension: true },
      closedAt: { type: 'date', label: 'Closed' },
    },
  },
  // `since` is answered from a replica: an issue updated just before a window's end can surface only after it was read.
  lookbackMinutes: 10,
  // nodes(ids:) takes at most 100 ids.
  deletions: { kind: 'keys', batchSize: 100, existing: existingIssues },

  async fetchPage({ baseUrl, config, window, cursor }, http) {
    const token = credential('github', config, 'accessToken', 'OAuth access token');
    const { start, end } = windowMs('github', window);
    if (cursor !== null && !cursor.startsWith(`${baseUrl}/issues?`)) throw foreignCursor('github');
    const url = cursor ?? listUrl(baseUrl, isoSeconds(start), 1);
    const res = await http.send({ method: 'GET', url, headers: githubHeaders(token) });
    if (!Array.isArray(res.body)) throw unexpectedShape('github', 'the issues list is not an array');
    const issues = (res.body as GithubIssue[]).filter((i) => typeof i?.id === 'number' && !Number.isNaN(Date.parse(String(i.updated_at))));
    const inWindow = issues.filter((i) => Date.parse(i.updated_at) >= start && Date.parse(i.updated_at) < end);
    const records: FeedRecord[] = inWindow.map((i) => ({ key: typeof i.node_id === 'string' ? i.node_id : String(i.id), value: issueValue(i) }));
    const linkNext = nextLink(res.headers.link);
    const reachedEnd = issues.some((i) => Date.parse(i.updated_at) >= end);
    if (!linkNext || reachedEnd || issues.length === 0) return { records, next: null };
    const since = new URL(url).searchParams.get('since');
    const last = issues[issues.length - 1].updated_at;
    const advanced = since === null || Date.parse(last) > Date.parse(since);
    if (!linkNext.startsWith(`${baseUrl}/issues?`)) throw foreignCursor('github');
    return { records, next: checkedCursor('github', advanced ? listUrl(baseUrl, isoSeconds(Date.parse(last)), 1) : linkNext) };
  },
};

function listUrl(baseUrl: string, since: string, page: number): string {
  const query = new URLSearchParams({
    filter: 'all',
    state: 'all',
    since,
    per_page: String(GITHUB_ISSUES_PER_PAGE),
    sort: 'updated',
    direction: 'asc',
    ...(page > 1 ? { page: String(page) } : {}),
  });
  return `${baseUrl}/issues?${query}`;
}

/** The rel="next" URL of a Link header, or null. */
export function nextLink(header: string | undefined): string | null {
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (match && /\brel=(?:"(?:[^"]*\s)?next(?:\s[^"]*)?"|next(?:;|$))/.test(match[2].trim())) return match[1];
  }
  return null;
}

function issueValue(i: GithubIssue): Record<string, unknown> {
  const repository = (i.repository as { full_name?: unknown } | undefined)?.full_name;
  const author = (i.user as { login?: unknown } | undefined)?.login;
  return {
    number: numberOrNull(i.number),
    title: stringOrNull(i.title),
    state: stringOrNull(i.state),
    repository: typeof repository === 'string' ? repository : repositoryFromUrl(i.repository_url),
    author: typeof author === 'string' ? author : null,
    comments: numberOrNull(i.comments),
    isPullRequest: i.pull_request ? 'yes' : 'no',
    createdAt: isoDate(i.created_at),
    updatedAt: isoDate(i.updated_at),
    closedAt: isoDate(i.closed_at),
  };
}

/** `owner/name` from `.../repos/owner/name`, for issue objects without a `repository`. */
function repositoryFromUrl(url: unknown): string | null {
  const match = typeof url === 'string' ? /\/repos\/([^/]+\/[^/]+)$/.exec(url) : null;
  return match ? match[1] : null;
}
