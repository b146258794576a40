import { ValidationError, type FieldIssue } from '../errors/errors';
import type { AnalyticsQuery } from './analytics.schemas';
import { quote } from './query-checks';
import { memberPlaces } from './query-members';

/** Where a place in a query (`filters.0.member`; '' for the query itself) is in the caller's request. */
export type PlaceInRequest = (path: string) => string;

/** A query sent as the body's `query` (the query and CSV export routes). */
export const IN_QUERY_BODY: PlaceInRequest = (path) => (path ? `query.${path}` : 'query');

/** Cube's own words are kept to this length: enough to read, never a page of its internals. */
const MAX_CUBE_MESSAGE = 300;

/**
 * 400 `invalid_query`: the query is the caller's to fix. Each issue is in
 * `details` at its place in the request; the message names the first, as a
 * widget's error entry (which has no details) shows only the message.
 */
export function refusedQuery(issues: FieldIssue[], at: PlaceInRequest): ValidationError {
  const placed = issues.map((i) => ({ path: at(i.path), message: i.message }));
  const [first] = placed;
  const more = placed.length > 1 ? ` (and ${placed.length - 1} more problem${placed.length > 2 ? 's' : ''}, listed in details)` : '';
  return new ValidationError(`Invalid query: ${first.path}: ${first.message}${more}`, placed, 'invalid_query');
}

/**
 * What the service says when Cube refused a query its own checks passed
 * (query-checks.ts): Cube's message, with the member it names placed in the
 * query when it names one of the query's, else the query as a whole. Cube
 * compiles only the organization's own model, so its message can name no
 * other organization's source; the SQL builder's own failures reach here as
 * a fixed sentence (cube/query-refusals.ts), never as its internals.
 */
export function refusedByCube(cubeMessage: string, query: AnalyticsQuery | undefined, at: PlaceInRequest): ValidationError {
  const said = cubeMessage.length > MAX_CUBE_MESSAGE ? `${cubeMessage.slice(0, MAX_CUBE_MESSAGE)}…` : cubeMessage;
  // The longest name first: "ds_1.amount" is also in "ds_1.amount2".
  const places = query ? memberPlaces(query).sort((a, b) => b.member.length - a.member.length) : [];
  const place = places.find((p) => cubeMessage.includes(p.member));
  const issue = place
    ? { path: place.path, message: `Cube refused the query at ${quote(place.member)}: ${said}` }
    : { path: '', message: `Cube refused the query: ${said}` };
  return refusedQuery([issue], at);
}
