import type { FeedHttp, FeedKeysInput } from '../feed-definition';
import { unexpectedShape, VendorRejected, VendorUnavailable } from '../vendor-errors';
import { vendorMessage } from '../vendor-http';
import { credential } from './feed-values';

/**
 * Which stored issues still exist, through GitHub's GraphQL API:
 * `nodes(ids:)` answers each node id with its node, or with null and a
 * NOT_FOUND error at `['nodes', i]` when the id no longer resolves for the
 * token's user (the issue was deleted, or the user lost access to its
 * repository: either way it leaves the table).
 */

export const NODES_QUERY = 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }';

// Error types that say the token may not look, not that the node is gone: retrying will not help until the user acts.
const ACCESS_ERRORS = new Set(['FORBIDDEN', 'INSUFFICIENT_SCOPES', 'UNAUTHORIZED']);

/** The headers of every GitHub API request, REST and GraphQL. */
export function githubHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
}

/** GraphQL's endpoint beside the REST base: `https://api.github.com/graphql`, or `https://HOST/api/graphql` for GitHub Enterprise Server (`https://HOST/api/v3`). */
export function graphqlUrl(baseUrl: string): string {
  return baseUrl.endsWith('/api/v3') ? `${baseUrl.slice(0, -'/v3'.length)}/graphql` : `${baseUrl}/graphql`;
}

// Keys are node ids, or the numeric REST id when GitHub sent no node_id: those cannot be asked about.
const isNodeId = (key: string) => !/^\d+$/.test(key) && /^[A-Za-z0-9_=+/-]+$/.test(key);

interface GraphqlError {
  type?: unknown;
  path?: unknown;
  message?: unknown;
}

/** The keys among `input.keys` GitHub still resolves; keys that are not node ids count as existing. */
export async function existingIssues({ baseUrl, config, keys }: FeedKeysInput, http: FeedHttp): Promise<Set<string>> {
  const token = credential('github', config, 'accessToken', 'OAuth access token');
  const ids = keys.filter(isNodeId);
  const existing = new Set(keys.filter((k) => !isNodeId(k)));
  if (ids.length === 0) return existing;
  const res = await http.send({ method: 'POST', url: graphqlUrl(baseUrl), headers: githubHeaders(token), body: { query: NODES_QUERY, variables: { ids } } });
  const answer = res.body as { data?: { nodes?: unknown } | null; errors?: unknown } | null;
  if (!answer || typeof answer !== 'object') throw unexpectedShape('github', 'the GraphQL answer is not an object');
  const notFound = notFoundIndexes(answer.errors, ids.length, res.status);
  const nodes = answer.data?.nodes;
  if (!Array.isArray(nodes) || nodes.length !== ids.length) throw unexpectedShape('github', 'data.nodes is not one entry per id asked');
  nodes.forEach((node: unknown, i) => {
    if (node === null) {
      // A null without its NOT_FOUND error is not a clear "gone": refuse it rather than delete on it.
      if (!notFound.has(i)) throw unexpectedShape('github', `node ${i} is null without a NOT_FOUND error`);
      return;
    }
    // By position: GitHub may answer a legacy id with the node's new-format id.
    if (typeof (node as { id?: unknown } | undefined)?.id !== 'string') throw unexpectedShape('github', `node ${i} has no id`);
    existing.add(ids[i]);
  });
  return existing;
}

/** The `nodes` indexes GitHub says it could not resolve; any other error throws, so it is never read as a deletion. */
function notFoundIndexes(errors: unknown, count: number, status: number): Set<number> {
  const found = new Set<number>();
  if (errors === undefined) return found;
  if (!Array.isArray(errors)) throw unexpectedShape('github', 'errors is not an array');
  for (const error of errors as GraphqlError[]) {
    const path = Array.isArray(error?.path) ? (error.path as unknown[]) : [];
    const index = path.length === 2 && path[0] === 'nodes' && Number.isInteger(path[1]) ? (path[1] as number) : -1;
    if (error?.type === 'NOT_FOUND' && index >= 0 && index < count) {
      found.add(index);
      continue;
    }
    const type = typeof error?.type === 'string' ? error.type : 'error';
    const detail = vendorMessage(error) ?? 'no message';
    const text = `GitHub's GraphQL API answered ${type}${path.length ? ` at ${path.join('.')}` : ''}: ${detail}`;
    // Access errors need the user (a scope, SSO authorization); the rest (rate limits, timeouts, unknown types) may pass.
    throw ACCESS_ERRORS.has(type) ? new VendorRejected('github', status, text) : new VendorUnavailable('github', status, text);
  }
  return found;
}
