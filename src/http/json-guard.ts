import { jsonHazard, MAX_JSON_DEPTH } from '../db/storable-json';
import { ValidationError } from '../errors/errors';

/**
 * Refuses, with one 400 `validation_failed` naming the offending value's
 * path and the rule it breaks, input that no handler should ever see: JSON nested past MAX_JSON_DEPTH levels (every
 * recursive walk after it stays far from the stack's end), text PostgreSQL
 * cannot store (NUL, unpaired surrogates), numbers JSON.parse made infinite
 * (`1e999`). Every JSON body, path parameter and query of the API passes
 * here before authorization's handler runs, so no route can forget it.
 */
export function assertSafeInput(value: unknown, where: 'body' | 'params' | 'query'): void {
  const hazard = jsonHazard(value);
  if (!hazard) return;
  const path = [...(where === 'body' ? [] : [where]), ...hazard.at].join('.') || '(root)';
  const what = where === 'params' ? 'path' : where;
  const message =
    hazard.kind === 'depth'
      ? `The request ${what} nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`
      : `The request ${what} holds a value the service cannot store at ${path}: it ${hazard.message}`;
  throw new ValidationError(message, [{ path, message: hazard.message }]);
}
