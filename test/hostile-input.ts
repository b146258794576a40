import request from 'supertest';
import fc from 'fast-check';
import type { OrgFixtures } from './permission-fixtures';
import type { TestOrg } from './factories';
import { type Harness } from './harness';
import { installWriteLog, type LoggedWrite } from './write-log';
import {
  type FeedFixtures,
  type Probe,
  registeredRoutes,
  type RouteCase,
  type RouteFixtures,
  routeKey,
  ROUTES,
  show,
  startRouteFixtures,
} from './route-catalog';

/**
 * The hostile-input matrix: every route of the router (test/route-catalog.ts,
 * so a route without a line there fails), called by A's owner with its valid
 * call bent one way at a time: each body field replaced by hostile values
 * (NUL, unpaired surrogates, 20,000 levels of nesting, over-long strings,
 * wrong types, empty and huge arrays, out-of-range numbers, `__proto__`
 * keys), whole bodies that are no object, unknown fields, invalid UTF-8,
 * hostile path parameters and query strings, and seeded random JSON from
 * fast-check. The same inputs every run (fixed seed).
 *
 * No answer may be a 5xx. A 4xx is the documented error body, and a 400's
 * field details say what is wrong rather than a validator's generic words.
 * After a refused write the database holds exactly what it held before in
 * every table scoped to the organizations involved: nothing written, no run
 * recorded (every row written to those tables is logged by a trigger,
 * test/write-log.ts). No input pollutes Object.prototype.
 */

const SEED = 20261125;
/** A raw JSON text standing where a valid value was. */
type Hostile = { name: string; json: string };

const DEEP = 20_000;
const HOSTILE_VALUES: Hostile[] = [
  { name: 'NUL', json: JSON.stringify('a\u0000b') },
  { name: 'unpaired surrogate', json: '"x\\ud800y"' },
  { name: `${DEEP} levels of nesting`, json: `${'['.repeat(DEEP)}${']'.repeat(DEEP)}` },
  { name: 'over-long string', json: JSON.stringify('x'.repeat(300_000)) },
  { name: 'empty string', json: '""' },
  { name: 'number', json: '12345' },
  { name: 'boolean', json: 'true' },
  { name: 'null', json: 'null' },
  { name: 'empty object', json: '{}' },
  { name: 'empty array', json: '[]' },
  { name: 'huge array', json: `[${'1,'.repeat(60_000)}1]` },
  { name: 'array of long strings', json: JSON.stringify(Array.from({ length: 200 }, () => 'y'.repeat(2_000))) },
  { name: 'number past IEEE 754 (1e999)', json: '1e999' },
  { name: 'huge number', json: '1e308' },
  { name: 'negative number', json: '-1' },
  { name: 'unsafe integer', json: '9007199254740993' },
  { name: 'fraction', json: '0.5' },
  { name: '__proto__ object', json: '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}' },
  { name: 'right-to-left and BOM characters', json: JSON.stringify('\u202e\ufeffname') },
];

/** Whole bodies instead of the valid one: raw text (or bytes) and the Content-Type sent with it. */
const HOSTILE_BODIES: Array<{ name: string; body: string | Buffer; type?: string }> = [
  { name: 'body nested 20,000 levels', body: `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}` },
  { name: 'body is an array', body: '[]' },
  { name: 'body is a string', body: '"text"' },
  { name: 'body is null', body: 'null' },
  { name: 'body is a number', body: '42' },
  { name: 'empty object', body: '{}' },
  { name: 'truncated JSON', body: '{"a":' },
  { name: 'invalid UTF-8 bytes', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]) },
  { name: 'not JSON', body: 'name=x', type: 'application/x-www-form-urlencoded' },
];

const HOSTILE_SEGMENTS: Hostile[] = [
  { name: 'NUL', json: '%00' },
  { name: 'over-long', json: 'x'.repeat(3_000) },
  { name: 'encoded surrogate (invalid UTF-8)', json: '%ED%A0%80' },
  { name: 'invalid percent-encoding', json: '%FF%FE' },
  { name: 'traversal', json: '..%2F..%2Fetc' },
  { name: 'negative number', json: '-1' },
  { name: 'space', json: '%20' },
  { name: 'zero UUID', json: '00000000-0000-0000-0000-000000000000' },
];

const HOSTILE_QUERIES = [
  'limit=-1',
  'limit=1e308',
  'limit=abc',
  'limit=1&limit=2',
  'offset=99999999999999999999999',
  `cursor=${'x'.repeat(3_000)}`,
  'unknown=%00',
  'q=%ED%A0%80',
];

/** Messages that say neither what is wrong nor what would be right: a validator's own words (zod's defaults among them). */
const GENERIC_MESSAGES = [
  /^invalid input/i,
  /^invalid key in record$/i,
  /^invalid$/i,
  /^required$/i,
  /^invalid (value|option|element|type|uuid|email|iso|string)\b/i,
  /^too (small|big)\b/i,
  /^unrecognized key/i,
  /^expected .* received/i,
];

const PLACEHOLDER = '__hostile_placeholder_5d1f__';

/**
 * Registers the matrix for every `parts`-th route from `part` on (the routes
 * interleaved, so each part holds a like share of writes and reads), with
 * fixtures of its own: hostile-input-<n>.integration.test.ts are the parts,
 * so Jest's workers share the matrix's minutes.
 */
export function hostileInputMatrix(part: number, parts: number): void {
  const routes = ROUTES.filter((_, i) => i % parts === part);
  let fixtures: RouteFixtures;
  let h: Harness;
  let A: OrgFixtures;
  let B: TestOrg;
  let F: FeedFixtures;
  let writeLog: Awaited<ReturnType<typeof installWriteLog>>;
  let feedTable: string;

  beforeAll(async () => {
    // A database of its own: the write log's triggers are this file's alone.
    fixtures = await startRouteFixtures({ isolatedDatabase: true });
    ({ h, A, B, feed: F } = fixtures);
    const tables: Array<{ table_name: string }> = await h.services.db.query(
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'organization_id' AND table_name NOT LIKE 'ds\\_%' ORDER BY table_name`,
    );
    writeLog = await installWriteLog(h.services.db, [...tables.map((t) => t.table_name), 'organizations', 'users']);
    feedTable = (await h.services.db.query(`SELECT data_store_table_name AS t FROM data_sources WHERE id = $1`, [F.sourceId]))[0].t as string;
  }, 180_000);
  afterAll(async () => {
    await fixtures?.close();
  });

  const only = (changed: string[], allowed: string[]) => changed.every((column) => allowed.includes(column));

  /**
   * The tables a write since `mark` changed for the organizations A, B and A's share partners.
   * What moves without a request is left out: a token's last use, the feed's
   * background syncs (its table, source and sync history), and runs started by earlier
   * successful calls going on (executions count by id only, their steps by run, their
   * waits by a claimed event; a bulk replay by what it selected, not how far its workflow got).
   */
  async function changedTablesSince(mark: number): Promise<string[]> {
    const orgs = [A.org.organizationId, B.organizationId, A.shareRecipient.organizationId];
    const written = await writeLog.since(mark);
    // The members of those organizations, asked for only when a user row was written (rarely: most variants write nothing).
    const members: Array<{ user_id: string }> = written.some((w) => w.table === 'users')
      ? await h.services.db.query(`SELECT user_id FROM memberships WHERE organization_id = ANY($1::uuid[])`, [orgs])
      : [];
    const users = new Set(members.map((m) => m.user_id));
    const counts = (w: LoggedWrite): boolean => {
      const { table, op, row, changed } = w;
      if (table === 'organizations') return orgs.includes(row.id as string);
      if (table === 'users') return users.has(row.id as string);
      if (!orgs.includes(row.organization_id as string)) return false;
      switch (table) {
        case 'access_tokens':
          return !(op === 'UPDATE' && only(changed, ['last_used_at']));
        case 'executions':
          return op !== 'UPDATE';
        // A run parks (the row written) and its wait ends in its own activities; a request only claims a wait's event.
        case 'execution_waits':
          return op === 'DELETE' || (op === 'UPDATE' && changed.includes('event_claimed_at'));
        case 'execution_replay_bulks':
          return !(op === 'UPDATE' && only(changed, ['status', 'finished_at']));
        case 'data_sources':
          return row.id !== F.sourceId;
        case 'feed_syncs':
          return row.data_source_id !== F.sourceId;
        case 'data_store_records':
          return row.table_name !== feedTable;
        default:
          return true;
      }
    };
    return [...new Set(written.filter(counts).map((w) => w.table))];
  }

  /** One bent call of a route. */
  interface Variant {
    name: string;
    method: string;
    url: string;
    /** Raw body text or bytes; omitted: the probe's own body. */
    body?: string | Buffer;
    contentType?: string;
  }

  /** Paths of the fields inside a JSON value (objects and the first item of arrays), at most `max`, shallow first. */
  function fieldPaths(value: unknown, max = 12): string[][] {
    const found: string[][] = [];
    const queue: Array<[unknown, string[]]> = [[value, []]];
    while (queue.length > 0 && found.length < max) {
      const [item, path] = queue.shift()!;
      if (path.length > 0) found.push(path);
      if (path.length >= 5 || item === null || typeof item !== 'object') continue;
      if (Array.isArray(item)) {
        if (item.length > 0) queue.push([item[0], [...path, '0']]);
      } else for (const [k, v] of Object.entries(item)) queue.push([v, [...path, k]]);
    }
    return found;
  }

  /** `value` as JSON text with the field at `path` replaced by the raw JSON `json`. */
  function withField(value: unknown, path: string[], json: string): string {
    const copy = structuredClone(value) as Record<string, unknown>;
    let holder: Record<string, unknown> = copy;
    for (const segment of path.slice(0, -1)) holder = holder[segment] as Record<string, unknown>;
    holder[path.at(-1)!] = PLACEHOLDER;
    return JSON.stringify(copy).replace(JSON.stringify(PLACEHOLDER), () => json);
  }

  /** The probe's JSON body, parsed (raw JSON uploads included); undefined when it sends none. */
  function jsonBodyOf(probe: Probe): unknown {
    if (probe.raw) return probe.raw.type === 'application/json' ? JSON.parse(probe.raw.data) : undefined;
    return probe.body;
  }

  function variantsOf(c: RouteCase, probe: Probe): Variant[] {
    const method = probe.method ?? c.method;
    const variants: Variant[] = [];
    const body = jsonBodyOf(probe);
    const sendsBody = body !== undefined || method === 'POST' || method === 'PUT' || method === 'PATCH';
    if (body !== null && typeof body === 'object') {
      for (const path of fieldPaths(body)) {
        for (const hostile of HOSTILE_VALUES) {
          variants.push({
            name: `${path.join('.')} = ${hostile.name}`,
            method,
            url: probe.url,
            body: withField(body, path, hostile.json),
          });
        }
      }
      if (!Array.isArray(body)) {
        const text = JSON.stringify(body);
        const rest = text === '{}' ? '}' : `,${text.slice(1)}`;
        variants.push({ name: 'unknown field', method, url: probe.url, body: `{"unknownFieldX":1${rest}` });
        variants.push({ name: '__proto__ field', method, url: probe.url, body: `{"__proto__":{"polluted":"yes","isAdmin":true}${rest}` });
      }
      // Seeded random JSON in place of seeded random fields.
      const paths = fieldPaths(body);
      const samples = fc.sample(fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 4 })), { seed: SEED + variants.length, numRuns: 6 });
      for (const [i, value] of samples) {
        const path = paths[i % paths.length];
        if (path)
          variants.push({
            name: `${path.join('.')} = random ${JSON.stringify(value).slice(0, 40)}`,
            method,
            url: probe.url,
            body: withField(body, path, JSON.stringify(value)),
          });
      }
    }
    if (sendsBody) {
      for (const hostile of HOSTILE_BODIES) variants.push({ name: hostile.name, method, url: probe.url, body: hostile.body, contentType: hostile.type });
    }
    for (const [i, segment] of c.path.split('/').entries()) {
      const param = segment.indexOf(':');
      if (param === -1) continue;
      for (const hostile of HOSTILE_SEGMENTS) {
        const [path, query] = probe.url.split('?');
        const segments = path.split('/');
        segments[i] = segment.slice(0, param) + hostile.json;
        variants.push({ name: `${segment} = ${hostile.name}`, method, url: segments.join('/') + (query ? `?${query}` : '') });
      }
    }
    if (c.method !== 'USE') {
      for (const query of HOSTILE_QUERIES)
        variants.push({ name: `query ${query.slice(0, 40)}`, method, url: `${probe.url}${probe.url.includes('?') ? '&' : '?'}${query}` });
    }
    return variants;
  }

  async function send(probe: Probe, variant: Variant): Promise<request.Response> {
    let req = (request(h.app) as any)[variant.method.toLowerCase()](variant.url).set('Authorization', `Bearer ${A.org.ownerToken}`) as request.Test;
    req = req.timeout(60_000);
    if (variant.body !== undefined) return req.set('Content-Type', variant.contentType ?? 'application/json').send(variant.body);
    if (probe.raw) return req.set('Content-Type', probe.raw.type).send(probe.raw.data);
    return probe.body === undefined ? req : req.send(probe.body as object);
  }

  /** What is wrong with the answer, or undefined. */
  function judge(res: request.Response): string | undefined {
    if (res.status >= 500) return `answered ${show(res)}`;
    if (res.status < 400) return undefined;
    const error = res.body?.error;
    if (typeof error?.code !== 'string' || typeof error?.message !== 'string') return `a ${res.status} without the error body: ${show(res)}`;
    if (res.status === 400) {
      for (const detail of (error.details ?? []) as Array<{ path?: unknown; message?: unknown }>) {
        if (typeof detail.path !== 'string' || typeof detail.message !== 'string') return `a detail without path and message: ${show(res)}`;
        if (GENERIC_MESSAGES.some((generic) => generic.test(detail.message as string))) return `a generic message at ${detail.path}: ${show(res)}`;
      }
    }
    return undefined;
  }

  test('the write log sees what a request writes, and not what it rolled back', async () => {
    const mark = await writeLog.mark();
    const made = await request(h.app)
      .post('/environments')
      .set('Authorization', `Bearer ${A.org.ownerToken}`)
      .send({ name: `write-log-${mark}`, variables: { K: 'v' } });
    expect(made.status).toBe(201);
    const rolledBack = h.services.db.createQueryRunner();
    await rolledBack.startTransaction();
    await rolledBack.query(`UPDATE organizations SET name = name || '!' WHERE id = $1`, [B.organizationId]);
    await rolledBack.rollbackTransaction();
    await rolledBack.release();
    expect(await changedTablesSince(mark)).toEqual(['environments', 'environment_variables']);
  });

  test('the hostile matrix covers every route the router has', () => {
    const registered = registeredRoutes(h.app);
    expect(registered.filter((k) => !ROUTES.map(routeKey).includes(k))).toEqual([]);
  });

  describe.each(routes.map((c) => [routeKey(c), c] as const))('%s', (_name, c) => {
    test('no hostile input is a 5xx, and a refused write changes nothing', async () => {
      const made = new Map<string, Promise<unknown>>();
      const fresh = <T>(make: () => Promise<T>, k = '') => {
        if (!made.has(k)) made.set(k, make());
        return made.get(k) as Promise<T>;
      };
      const failures: string[] = [];
      const probe = await c.build({ a: A, caller: 'owner', fresh, feed: F });
      const writes = (probe.method ?? c.method) !== 'GET';
      for (const variant of variantsOf(c, probe)) {
        // The route's own resource is made before the snapshot, so making it is not read as the call's write.
        const current = await c.build({ a: A, caller: 'owner', fresh, feed: F });
        if (current.url !== probe.url) variant.url = variant.url.replace(probe.url.split('?')[0], current.url.split('?')[0]);
        const mark = writes ? await writeLog.mark() : undefined;
        const res = await send(current, variant);
        if (res.status >= 200 && res.status < 300) made.clear();
        const wrong = judge(res);
        if (wrong) failures.push(`${variant.name}: ${wrong}`);
        if (mark !== undefined && res.status >= 400 && res.status < 500) {
          const changed = await changedTablesSince(mark);
          if (changed.length > 0) failures.push(`${variant.name}: refused with ${res.status} ${res.body?.error?.code} but changed ${changed.join(', ')}`);
        }
        if (Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted') || Object.prototype.hasOwnProperty.call(Object.prototype, 'isAdmin')) {
          failures.push(`${variant.name}: Object.prototype was polluted`);
          delete (Object.prototype as Record<string, unknown>).polluted;
          delete (Object.prototype as Record<string, unknown>).isAdmin;
        }
      }
      expect(failures).toEqual([]);
    }, 600_000);
  });
}
