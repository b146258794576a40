import type { Express } from 'express';
import type { Services } from '../src/app/services';
import type { Role } from '../src/auth/roles';
import { as, expectStatus } from './harness';

/**
 * What integration tests build and wait with: fresh organizations, records,
 * unique names, and polling. Every test builds its own organization, so test
 * files share nothing and may run in parallel.
 */

type Json = Record<string, any>;

/**
 * Resolves after `ms`. Only for letting time itself pass (an expiry, a clock
 * tick); to wait for something to happen, poll for it with `waitFor`.
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  /** Default 30 s: only there so that a condition that never holds fails the test instead of hanging it. */
  timeoutMs?: number;
  /**
   * A fixed pause between polls, for a state that may not last long. Without it, the pauses grow from
   * 100 ms by a quarter each to MAX_POLL_INTERVAL_MS.
   */
  intervalMs?: number;
  /** Names the condition in the failure (a function is called only then). */
  what?: string | (() => string);
}

/**
 * The longest pause between two polls. A poll costs CPU (a request, a query) whether or not the condition
 * holds yet, so a fixed pace made the suite's CPU grow with its waits: on a busy machine, longer waits, more
 * polls, a busier machine. Growing pauses keep a long wait to a few polls a second; a short one stays prompt.
 */
const MAX_POLL_INTERVAL_MS = 500;

/** Polls `condition` until it returns true; throws past the deadline. (A boolean, not any truthy value: an empty array is not "done".) */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 30_000, intervalMs, what = 'condition' }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pause = intervalMs ?? 100;
  for (;;) {
    if ((await condition()) === true) return;
    if (Date.now() > deadline) throw new Error(`${typeof what === 'function' ? what() : what}: not met within ${timeoutMs} ms`);
    await sleep(pause);
    if (intervalMs === undefined) pause = Math.min(pause * 1.25, MAX_POLL_INTERVAL_MS);
  }
}

/** Polls `read` until `done` holds for its value, and returns that value; past the deadline, fails naming the last value read. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  let last: T;
  await waitFor(async () => done((last = await read())), {
    timeoutMs,
    what: () => `condition on the last value read, ${JSON.stringify(last).slice(0, 2000)}`,
  });
  return last!;
}

let seq = 0;
/**
 * A name unique in this process (and, by its time part, across runs on a shared
 * database), valid as a workflow, trigger, connection, environment or table name.
 */
export const uniqueName = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;

export interface TestOrg {
  organizationId: string;
  organizationSuid: string;
  ownerId: string;
  ownerToken: string;
  /** A token per role, each held by a distinct member. */
  tokens: Record<Role, string>;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A fresh organization with one member per role, built through the real services. */
export async function createTestOrg(services: Services, plan: 'free' | 'team' | 'business' | 'enterprise' = 'team'): Promise<TestOrg> {
  const id = unique();
  const { organization, userId, token } = await services.organizations.createOrganization({
    name: `Org ${id}`,
    plan,
    owner: { email: `owner-${id}@example.test` },
    tokenName: 'test',
  });
  const tokens = { owner: token.token } as Record<Role, string>;
  const owner = { organizationId: organization.id, userId, role: 'owner' as const };
  // Members join as people do: invited, then accepting with the code (which creates their account).
  for (const role of ['admin', 'developer', 'analyst', 'viewer'] as const) {
    const invitation = await services.invitations.invite(owner, { email: `${role}-${id}@example.test`, role });
    tokens[role] = (await services.invitations.accept(invitation.code, undefined)).token.token;
  }
  return { organizationId: organization.id, organizationSuid: organization.suid, ownerId: userId, ownerToken: token.token, tokens };
}

/** Records as `{key → value}` or as the API's `[{key, value}]`. */
export type Records = Record<string, Json> | Array<{ key: string; value: Json }>;

/**
 * Upserts records into a data store table (created if needed) as the owner,
 * through the batch route, 1,000 a request; fails the test unless each answer is 200.
 */
export async function seedRecords(app: Express, org: TestOrg, table: string, records: Records): Promise<void> {
  const list = Array.isArray(records) ? records : Object.entries(records).map(([key, value]) => ({ key, value }));
  for (let i = 0; i < list.length; i += 1000) {
    const res = await as(app, org.ownerToken)
      .post(`/data-stores/tables/${encodeURIComponent(table)}`)
      .send({ records: list.slice(i, i + 1000) });
    expectStatus(res, 200);
  }
}

/** Inserts one record as the owner (POST /data-stores); fails the test unless it is 201; returns the record. */
export async function insertRecord(app: Express, org: TestOrg, body: Json): Promise<Json> {
  const res = await as(app, org.ownerToken).post('/data-stores').send(body);
  expectStatus(res, 201);
  return res.body;
}
