import type http from 'node:http';
import { sendJson, type StubHandler, type StubRequest } from '../http-stub';
import { answerNodes } from './github-graphql-stub';
import { bearerToken, type FailureWriter, hex, timeline } from './vendor-server';

/**
 * GitHub's REST API (2022-11-28) as far as the `github:issues` feed uses it:
 * `GET /issues` of the authenticated user with filter, state, since, sort,
 * direction, per_page and page, paged by the `Link` header, with GitHub's
 * issue objects, rate-limit headers and error bodies; and GraphQL's
 * `nodes(ids:)` (github-graphql-stub.ts). Like api.github.com it refuses
 * any request without a User-Agent before looking at anything else.
 */

export interface GithubIssueOptions {
  /** First issue's updated_at (default: a day ago); the rest follow `spacingSeconds` apart (default 60). */
  start?: string | Date;
  spacingSeconds?: number;
  /** `owner/name` (default octo-org/octo-repo). */
  repository?: string;
  state?: 'open' | 'closed';
  /** Make them pull requests (GitHub lists those among issues, with a `pull_request` object). */
  pullRequest?: boolean;
}

const DOCS = 'https://docs.github.com/rest';
/** api.github.com's answer (403, text/plain) to a request without a User-Agent header. */
export const NO_USER_AGENT =
  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.';
const RATE_DOCS = 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api';

export const githubFailure: FailureWriter = (answer, res) => {
  const reset = String(Math.ceil(Date.now() / 1000) + (answer.retryAfterSeconds ?? 60));
  if (answer.status === 403 && answer.retryAfterSeconds !== undefined) {
    // The primary rate limit: 403 with the quota exhausted and its reset time, no Retry-After.
    return sendJson(
      res,
      403,
      { message: 'API rate limit exceeded for user ID 1.', documentation_url: RATE_DOCS },
      { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, 'x-ratelimit-resource': 'core' },
    );
  }
  if (answer.status === 403 && answer.secondaryLimit) {
    // A secondary rate limit may name no wait at all: GitHub's advice is then to wait at least a minute.
    return sendJson(
      res,
      403,
      { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: RATE_DOCS },
      { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4990', 'x-ratelimit-reset': reset, 'x-ratelimit-resource': 'core' },
    );
  }
  const retry: Record<string, string> = answer.retryAfterSeconds !== undefined ? { 'retry-after': String(answer.retryAfterSeconds) } : {};
  if (answer.status === 429) return sendJson(res, 429, { message: 'You have exceeded a secondary rate limit.', documentation_url: RATE_DOCS }, retry);
  if (answer.status === 401) return sendJson(res, 401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
  if (answer.status >= 500) return sendJson(res, answer.status, { message: 'Server Error' }, retry);
  return sendJson(res, answer.status, { message: 'Forbidden', documentation_url: DOCS, status: String(answer.status) }, retry);
};

export function createGithubApi(baseUrl: () => string) {
  const accessToken = `gho_${hex(18)}`;
  const issues: Record<string, any>[] = [];
  let tokenCheck: ((token: string) => boolean) | null = null;
  let nextId = 1_000_000 + Math.floor(Math.random() * 1_000_000);

  function addIssues(n: number, opts: GithubIssueOptions = {}): Record<string, any>[] {
    const repo = opts.repository ?? 'octo-org/octo-repo';
    const [owner] = repo.split('/');
    return Array.from({ length: n }, (_, i) => {
      const id = nextId++;
      const number = issues.filter((x) => x.repository.full_name === repo).length + 1;
      const updated = timeline(opts, i);
      const created = new Date(updated.getTime() - 3_600_000);
      const closed = opts.state === 'closed';
      const repoUrl = `${baseUrl()}/repos/${repo}`;
      const issue: Record<string, any> = {
        id,
        node_id: `I_kwDO${Buffer.from(String(id)).toString('base64url')}`,
        url: `${repoUrl}/issues/${number}`,
        repository_url: repoUrl,
        html_url: `https://github.com/${repo}/issues/${number}`,
        number,
        state: closed ? 'closed' : 'open',
        state_reason: closed ? 'completed' : null,
        title: `Issue ${number} of ${repo}`,
        body: 'Steps to reproduce...',
        user: { login: `user${i % 7}`, id: 500 + (i % 7), type: 'User' },
        labels: [],
        assignee: null,
        assignees: [],
        locked: false,
        comments: i % 5,
        created_at: created.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        updated_at: updated.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        closed_at: closed ? updated.toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
        author_association: 'MEMBER',
        repository: { id: 42, node_id: 'R_kgDOAAAAKg', name: repo.split('/')[1], full_name: repo, private: false, owner: { login: owner } },
      };
      if (opts.pullRequest) {
        issue.pull_request = { url: `${repoUrl}/pulls/${number}`, html_url: `https://github.com/${repo}/pull/${number}`, merged_at: null };
      }
      issues.push(issue);
      return issue;
    });
  }

  const rateHeaders = () => ({
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
    'x-ratelimit-used': '1',
    'x-ratelimit-resource': 'core',
    'x-github-media-type': 'github.v3; format=json',
  });

  /** Deletes these issues: gone from /issues, and nodes() answers null with NOT_FOUND for them. */
  function deleteIssues(nodeIds: string[]) {
    const gone = new Set(nodeIds);
    for (let i = issues.length - 1; i >= 0; i--) if (gone.has(issues[i].node_id)) issues.splice(i, 1);
  }

  /** Changes an issue as an edit on GitHub would: the patch applies, and `updated_at` moves to now. */
  function updateIssue(nodeId: string, patch: Record<string, unknown>): Record<string, any> {
    const issue = issues.find((x) => x.node_id === nodeId);
    if (!issue) throw new Error(`GitHub stub: no issue ${nodeId}`);
    return Object.assign(issue, patch, { updated_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
  }

  const authorized = (token: string | null) => token !== null && (tokenCheck ? tokenCheck(token) : token === accessToken);

  const route: StubHandler = (req, res) => {
    if (!req.headers['user-agent']) {
      if (!res.destroyed) res.writeHead(403, { 'content-type': 'text/plain' }).end(NO_USER_AGENT);
      return;
    }
    if (!authorized(bearerToken(req))) return sendJson(res, 401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    if (req.path === '/graphql' && req.method === 'POST') return answerNodes(req, res, issues);
    if (req.path !== '/issues' || req.method !== 'GET') return sendJson(res, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    return listIssues(req, res);
  };

  function listIssues(req: StubRequest, res: http.ServerResponse) {
    const q = req.query;
    const perPage = Math.min(Number(q.per_page ?? 30), 100);
    const page = Number(q.page ?? 1);
    const since = q.since === undefined ? undefined : Date.parse(q.since);
    if (!Number.isInteger(perPage) || perPage < 1 || !Number.isInteger(page) || page < 1 || Number.isNaN(since)) {
      return sendJson(res, 422, { message: 'Validation Failed', documentation_url: DOCS, status: '422' });
    }
    const state = q.state ?? 'open';
    const sort = q.sort ?? 'created';
    const sign = (q.direction ?? 'desc') === 'asc' ? 1 : -1;
    const field = sort === 'updated' ? 'updated_at' : sort === 'comments' ? 'comments' : 'created_at';
    const value = (x: Record<string, any>) => (field === 'comments' ? x.comments : Date.parse(x[field]));
    const matching = issues
      .filter((x) => state === 'all' || x.state === state)
      .filter((x) => since === undefined || Date.parse(x.updated_at) >= since)
      .sort((a, b) => sign * (value(a) - value(b)) || a.id - b.id);
    const last = Math.max(Math.ceil(matching.length / perPage), 1);
    const link = (p: number, rel: string) => `<${baseUrl()}/issues?${new URLSearchParams({ ...q, per_page: String(perPage), page: String(p) })}>; rel="${rel}"`;
    const links = [...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []), ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])];
    sendJson(res, 200, matching.slice((page - 1) * perPage, page * perPage), { ...rateHeaders(), ...(links.length ? { link: links.join(', ') } : {}) });
  }

  return {
    accessToken,
    route,
    addIssues,
    deleteIssues,
    updateIssue,
    issues,
    /** Which bearer tokens authenticate (null: only `accessToken`). */
    setTokenCheck: (check: ((token: string) => boolean) | null) => void (tokenCheck = check),
  };
}
