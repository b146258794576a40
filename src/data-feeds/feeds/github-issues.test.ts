import type { FeedRequest, FeedResponse } from '../feed-definition';
import { VendorRejected } from '../vendor-errors';
import { githubIssues, nextLink } from './github-issues';

/** The issues feed never reads stored values. */
const stored = async () => new Map<string, Record<string, unknown>>();

const BASE = 'https://gh.test/api/v3';
const config = { clientId: 'c', clientSecret: 's', refreshToken: 'r', accessToken: 'gho_tok' };
const window = { startDate: '2024-01-01T00:00:00Z', endDate: '2024-01-02T00:00:00Z' };
const HEADERS = { authorization: 'Bearer gho_tok', accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
const FIRST = `${BASE}/issues?filter=all&state=all&since=2024-01-01T00%3A00%3A00Z&per_page=100&sort=updated&direction=asc`;

const issue = (id: number, updated: string, extra: Record<string, unknown> = {}) => ({
  id,
  node_id: `I_${id}`,
  number: id % 100,
  title: `Issue ${id}`,
  state: 'open',
  user: { login: 'octocat' },
  comments: 3,
  created_at: '2023-12-31T00:00:00Z',
  updated_at: updated,
  closed_at: null,
  repository_url: 'https://gh.test/api/v3/repos/octo/repo',
  repository: { full_name: 'octo/repo' },
  ...extra,
});

function fakeHttp(body: unknown, headers: Record<string, string> = {}) {
  const sent: FeedRequest[] = [];
  return { sent, send: async (req: FeedRequest): Promise<FeedResponse> => (sent.push(req), { status: 200, headers, body }) };
}

const link = (page: number) => `<${FIRST}&page=${page}>; rel="next", <${FIRST}&page=9>; rel="last"`;

describe('github:issues', () => {
  it('asks for issues updated since the window start with the API headers, and maps them', async () => {
    const http = fakeHttp([
      issue(101, '2024-01-01T01:00:00Z', { pull_request: { url: 'x' } }),
      issue(102, '2024-01-01T02:00:00Z', { state: 'closed', closed_at: '2024-01-01T02:00:00Z', repository: undefined }),
    ]);
    const page = await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(http.sent).toEqual([{ method: 'GET', url: FIRST, headers: HEADERS }]);
    expect(page.next).toBeNull();
    expect(page.records).toEqual([
      {
        key: 'I_101',
        value: {
          number: 1,
          title: 'Issue 101',
          state: 'open',
          repository: 'octo/repo',
          author: 'octocat',
          comments: 3,
          isPullRequest: 'yes',
          createdAt: '2023-12-31T00:00:00.000Z',
          updatedAt: '2024-01-01T01:00:00.000Z',
          closedAt: null,
        },
      },
      expect.objectContaining({
        key: 'I_102',
        value: expect.objectContaining({ repository: 'octo/repo', isPullRequest: 'no', closedAt: '2024-01-01T02:00:00.000Z' }),
      }),
    ]);
  });

  it('continues from the last updated_at seen when the page advanced it', async () => {
    const http = fakeHttp([issue(1, '2024-01-01T01:00:00Z'), issue(2, '2024-01-01T03:00:00Z')], { link: link(2) });
    const page = await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(page.next).toBe(`${BASE}/issues?filter=all&state=all&since=2024-01-01T03%3A00%3A00Z&per_page=100&sort=updated&direction=asc`);
  });

  it("follows the Link header's next URL when the whole page shares the request's since", async () => {
    const http = fakeHttp([issue(1, '2024-01-01T00:00:00Z'), issue(2, '2024-01-01T00:00:00Z')], { link: link(2) });
    const page = await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(page.next).toBe(`${FIRST}&page=2`);
    const again = fakeHttp([], {});
    await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: page.next, stored }, again);
    expect(again.sent[0].url).toBe(`${FIRST}&page=2`);
  });

  it('leaves issues updated at or after the window end for the next window, and stops there', async () => {
    const http = fakeHttp([issue(1, '2024-01-01T23:59:59Z'), issue(2, '2024-01-02T00:00:00Z'), issue(3, '2024-01-03T00:00:00Z')], { link: link(2) });
    const page = await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(page.records.map((r) => r.key)).toEqual(['I_1']);
    expect(page.next).toBeNull();
  });

  it('keys by id when an issue has no node_id', async () => {
    const http = fakeHttp([{ ...issue(7, '2024-01-01T01:00:00Z'), node_id: undefined }]);
    const page = await githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, http);
    expect(page.records[0].key).toBe('7');
  });

  it('refuses cursors and Link URLs off the configured base URL', async () => {
    const http = fakeHttp([]);
    await expect(githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: 'https://evil.test/issues?page=2', stored }, http)).rejects.toBeInstanceOf(
      VendorRejected,
    );
    await expect(githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: `${BASE}/user/repos?page=2`, stored }, http)).rejects.toBeInstanceOf(
      VendorRejected,
    );
    expect(http.sent).toHaveLength(0);
    const off = fakeHttp([issue(1, '2024-01-01T00:00:00Z')], { link: '<https://evil.test/issues?page=2>; rel="next"' });
    await expect(githubIssues.fetchPage({ baseUrl: BASE, config, window, cursor: null, stored }, off)).rejects.toBeInstanceOf(VendorRejected);
  });

  it('re-reads the last 10 minutes (since reads a replica that can lag)', () => {
    expect(githubIssues.lookbackMinutes).toBe(10);
  });

  it('asks to reconnect when the connection has no access token', async () => {
    const http = fakeHttp([]);
    const err = await githubIssues
      .fetchPage({ baseUrl: BASE, config: { ...config, accessToken: '' }, window, cursor: null, stored }, http)
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(VendorRejected);
    expect((err as Error).message).toBe('The GitHub connection has no OAuth access token: reconnect it (authorize again) and retry the sync');
  });
});

describe('nextLink', () => {
  it('finds rel="next" among other relations', () => {
    expect(nextLink('<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel="next"')).toBe('https://a/x?page=3');
    expect(nextLink('<https://a/x?page=1>; rel="first"')).toBeNull();
    expect(nextLink(undefined)).toBeNull();
    expect(nextLink('<https://a/x?page=2>; rel="nextish"')).toBeNull();
    expect(nextLink('<https://a/x?page=2>; rel=next')).toBe('https://a/x?page=2');
    expect(nextLink('<https://a/x?page=2>; rel="last next"')).toBe('https://a/x?page=2');
  });
});
