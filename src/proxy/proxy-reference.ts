import { AppError, ValidationError } from '../errors/errors';
import { REFERENCE_TYPES, type ReferenceType } from './reference-types';

/** A reference resolved to its registered type and checked id. */
export interface ProxyReference {
  /** `<service>:<type>`, e.g. `twilio:recording`. */
  key: string;
  type: ReferenceType;
  id: string;
}

const FORM = 'proxy+<service>:<type>://<id>';
// Lenient in the id (checked per type below) so a bad id gets the type's own message.
const REFERENCE = /^proxy\+([a-z0-9][a-z0-9-]*):([a-z0-9][a-z0-9-]*):\/\/([^/?#\s]+)$/i;
/** Longer than any id a registered type accepts: refused before any matching. */
const MAX_REFERENCE_LENGTH = 512;

/**
 * Parses a `proxy+<service>:<type>://<id>` reference as records carry it:
 * 400 `url_required` when absent, 400 `invalid_reference` when it is not
 * of that form or its id does not fit its type, 404 `unknown_reference_type`
 * for a `<service>:<type>` no entry is registered for.
 */
export function parseReference(url: string | undefined): ProxyReference {
  if (url === undefined || url.trim() === '') {
    throw new ValidationError(
      `Give the reference to fetch in the url query parameter (${FORM})`,
      [{ path: 'query.url', message: 'is required' }],
      'url_required',
    );
  }
  const match = url.length <= MAX_REFERENCE_LENGTH ? REFERENCE.exec(url) : null;
  if (!match) {
    throw new ValidationError(
      `The url query parameter is not a proxy reference: expected ${FORM}, as data feed records carry it`,
      [{ path: 'query.url', message: `must look like ${FORM}` }],
      'invalid_reference',
    );
  }
  const key = `${match[1].toLowerCase()}:${match[2].toLowerCase()}`;
  const type = Object.hasOwn(REFERENCE_TYPES, key) ? REFERENCE_TYPES[key] : undefined;
  if (!type) {
    const known = Object.keys(REFERENCE_TYPES).join(', ');
    throw new AppError(404, 'unknown_reference_type', `No proxy reference type "${key}" is registered; known types: ${known}`);
  }
  const id = match[3];
  if (!type.idPattern.test(id)) {
    throw new ValidationError(
      `The id of a ${key} reference must be ${type.idDescription}`,
      [{ path: 'query.url', message: 'id does not match its type' }],
      'invalid_reference',
    );
  }
  return { key, type, id };
}
