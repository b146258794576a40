import type { FeedRequest, FeedResponse } from '../feed-definition';
import { VendorRejected, VendorUnavailable } from '../vendor-errors';
import { existingIssues, graphqlUrl, NODES_QUERY } from './github-graphql';
import { githubIssues } from './github-issues';

const config = { accessToken: 'gho_tok' };
const HEADERS = { authorization: 'Bearer gho_tok', accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

function fakeHttp(body: unknown) {
  const sent: FeedRequest[] = [];
  return { sent, send: async (req: FeedRequest): Promise<FeedResponse> => (sent.push(req), { status: 200, headers: {}, body }) };
}

const notFound = (i: number, id: string) => ({
  type: 'NOT_FOUND',
  path: ['nodes', i],
  locations: [{ line: 1, column: 27 }],
  message: `Could not resolve to a node with the global id of '${id}'.`,
});

const check = (keys: string[], http: ReturnType<typeof fakeHttp>, baseUrl = 'https://api.github.com') => existingIssues({ baseUrl, config, keys }, http);

describe('github:issues deletions (GraphQL nodes)', () => {
  it('is how the feed checks its keys', () => {
    expect(githubIssues.deletions).toEqual({ kind: 'keys', batchSize: 100, existing: existingIssues });
  });

  it('asks nodes(ids:) with the REST headers and keeps the ids that resolve', async () => {
    const http = fakeHttp({ data: { nodes: [{ id: 'I_a' }, null, { id: 'I_c' }] }, errors: [notFound(1, 'I_b')] });
    expect(await check(['I_a', 'I_b', 'I_c'], http)).toEqual(new Set(['I_a', 'I_c']));
    expect(http.sent).toEqual([
      { method: 'POST', url: 'https://api.github.com/graphql', headers: HEADERS, body: { query: NODES_QUERY, variables: { ids: ['I_a', 'I_b', 'I_c'] } } },
    ]);
  });

  it('matches nodes by position (a legacy id may come back in the new format)', async () => {
    const http = fakeHttp({ data: { nodes: [{ id: 'I_kwDOnew' }] } });
    expect(await check(['MDU6SXNzdWUx'], http)).toEqual(new Set(['MDU6SXNzdWUx']));
  });

  it('counts numeric keys (no node_id) as existing without asking', async () => {
    const http = fakeHttp({ data: { nodes: [null] }, errors: [notFound(0, 'I_x')] });
    expect(await check(['7', 'I_x'], http)).toEqual(new Set(['7']));
    expect((http.sent[0].body as { variables: unknown }).variables).toEqual({ ids: ['I_x'] });
    const none = fakeHttp({});
    expect(await check(['7', '8'], none)).toEqual(new Set(['7', '8']));
    expect(none.sent).toHaveLength(0);
  });

  it('reads only NOT_FOUND at a nodes index as gone; other errors throw', async () => {
    const rateLimited = fakeHttp({ data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] });
    await expect(check(['I_a'], rateLimited)).rejects.toBeInstanceOf(VendorUnavailable);
    const forbidden = fakeHttp({
      data: { nodes: [null] },
      errors: [{ type: 'FORBIDDEN', path: ['nodes', 0], message: 'Resource protected by organization SAML enforcement.' }],
    });
    const err = await check(['I_a'], forbidden).catch((e: Error) => e);
    expect(err).toBeInstanceOf(VendorRejected);
    expect((err as Error).message).toBe("GitHub's GraphQL API answered FORBIDDEN at nodes.0: Resource protected by organization SAML enforcement.");
    const topLevel = fakeHttp({ errors: [{ message: 'Something went wrong while executing your query.' }] });
    await expect(check(['I_a'], topLevel)).rejects.toBeInstanceOf(VendorUnavailable);
    const notFoundElsewhere = fakeHttp({ data: { nodes: [null] }, errors: [{ ...notFound(0, 'I_a'), path: ['viewer'] }] });
    await expect(check(['I_a'], notFoundElsewhere)).rejects.toBeInstanceOf(VendorUnavailable);
  });

  it('refuses answers of another shape rather than delete on them', async () => {
    for (const body of [
      '<html>',
      { data: { nodes: [{ id: 'I_a' }] } },
      { data: { nodes: [null, null] } },
      { data: { nodes: [{}, null] }, errors: [notFound(1, 'I_b')] },
      { data: { nodes: [null, null] }, errors: 'NOT_FOUND' },
    ]) {
      await expect(check(['I_a', 'I_b'], fakeHttp(body))).rejects.toBeInstanceOf(VendorUnavailable);
    }
  });

  it('asks to reconnect without an access token', async () => {
    await expect(existingIssues({ baseUrl: 'https://api.github.com', config: {}, keys: ['I_a'] }, fakeHttp({}))).rejects.toBeInstanceOf(VendorRejected);
  });
});

describe('graphqlUrl', () => {
  it('is /graphql on api.github.com and /api/graphql beside GHES /api/v3', async () => {
    expect(graphqlUrl('https://api.github.com')).toBe('https://api.github.com/graphql');
    expect(graphqlUrl('https://ghe.example.com/api/v3')).toBe('https://ghe.example.com/api/graphql');
    expect(graphqlUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010/graphql');
    const http = fakeHttp({ data: { nodes: [{ id: 'I_a' }] } });
    await check(['I_a'], http, 'https://ghe.example.com/api/v3');
    expect(http.sent[0].url).toBe('https://ghe.example.com/api/graphql');
  });
});
