import type http from 'node:http';
import { sendJson, type StubRequest } from '../http-stub';
import { jsonBody } from './vendor-server';

/**
 * GitHub's GraphQL API (`POST /graphql`) for the one query the
 * `github:issues` feed sends: `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`.
 * Each id answers its node, or null with a NOT_FOUND error at
 * `['nodes', i]`, as GitHub does for a deleted node or one the user cannot
 * see. Anything else answers in GitHub's GraphQL error shape (200 with
 * `errors`, no `data`), so a feed sending another query fails visibly.
 */

// Whitespace and an operation name are free; the selection is not.
const NODES_QUERY = /^query(?:\s+\w+)?\s*\(\s*\$ids\s*:\s*\[\s*ID\s*!\s*\]\s*!\s*\)\s*\{\s*nodes\s*\(\s*ids\s*:\s*\$ids\s*\)\s*\{\s*id\s*\}\s*\}$/;
/** GitHub refuses more ids than this in one nodes() call. */
const MAX_NODE_IDS = 100;
const DOCS = 'https://docs.github.com/graphql';

/** Where `word` first occurs in the query, as GraphQL error locations say it. */
function location(query: string, word: string) {
  const lines = query.slice(0, query.indexOf(word)).split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

const graphqlErrors = (res: http.ServerResponse, ...errors: Record<string, unknown>[]) => sendJson(res, 200, { errors });

/** Answers the nodes query over `issues` (GitHub's issue objects, keyed by `node_id`). */
export function answerNodes(req: StubRequest, res: http.ServerResponse, issues: Record<string, unknown>[]) {
  const body = jsonBody(req) as { query?: unknown; variables?: { ids?: unknown } } | undefined;
  if (!body || typeof body !== 'object') return sendJson(res, 400, { message: 'Problems parsing JSON', documentation_url: DOCS });
  if (typeof body.query !== 'string') return graphqlErrors(res, { message: 'A query attribute must be specified and must be a string.' });
  const query = body.query.trim();
  if (!NODES_QUERY.test(query)) {
    return graphqlErrors(res, { message: `The GitHub stub answers only query($ids: [ID!]!) { nodes(ids: $ids) { id } }, not: ${query.slice(0, 200)}` });
  }
  const ids = body.variables?.ids;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    return graphqlErrors(res, {
      extensions: { value: ids ?? null, problems: [{ path: [], explanation: 'Expected value to not be null' }] },
      locations: [location(query, '$ids')],
      message: 'Variable $ids of type [ID!]! was provided invalid value',
    });
  }
  const at = location(query, 'nodes');
  if (ids.length > MAX_NODE_IDS) {
    return sendJson(res, 200, {
      data: null,
      errors: [{ path: ['nodes'], locations: [at], message: `You may not request more than ${MAX_NODE_IDS} node IDs; you requested ${ids.length}.` }],
    });
  }
  const live = new Set(issues.map((i) => i.node_id));
  const nodes = ids.map((id) => (live.has(id) ? { id } : null));
  const errors = ids.flatMap((id, i) =>
    live.has(id) ? [] : [{ type: 'NOT_FOUND', path: ['nodes', i], locations: [at], message: `Could not resolve to a node with the global id of '${id}'.` }],
  );
  sendJson(res, 200, { data: { nodes }, ...(errors.length ? { errors } : {}) });
}
