import { Connection, isGrpcServiceError } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
// The SDK's own mapping between its type names and the server's IndexedValueType numbers.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import type { Logger } from '../logging/logger';
import { SEARCH_ATTRIBUTES, type SearchAttributeName, cliTypeName, searchAttributeCreateCommand } from './search-attributes';

/** The two operator service calls the check makes (`connection.operatorService`; a test may refuse the second, as a managed cluster may). */
export interface SearchAttributeOperator {
  listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, number> | null }>;
  addSearchAttributes(request: { namespace: string; searchAttributes: Record<string, number> }): Promise<unknown>;
}

/** gRPC status codes the check tells apart. */
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;

/** The namespace lacks attributes the service sets (or has them with another type) and they could not be added. */
export class SearchAttributesMissingError extends Error {
  constructor(
    readonly namespace: string,
    readonly missing: SearchAttributeName[],
    readonly wrongType: Array<{ name: SearchAttributeName; expected: string; actual: string }>,
    /** The `temporal` CLI command that adds the missing ones (empty when none is missing). */
    readonly command: string,
    reason?: string,
  ) {
    const lines = [`Temporal namespace "${namespace}" lacks search attributes this service sets on its runs and schedules.`];
    if (missing.length) lines.push(`Missing: ${missing.map((n) => `${n} (${cliTypeName(SEARCH_ATTRIBUTES[n])})`).join(', ')}.`);
    if (reason) lines.push(`Registering them was refused: ${reason}`);
    if (command) lines.push('Add them, then start again:', `  ${command}`);
    for (const w of wrongType) {
      lines.push(
        `${w.name} exists with type ${w.actual}, but the service sets ${w.expected}; remove it (temporal operator search-attribute remove) and start again.`,
      );
    }
    super(lines.join('\n'));
    this.name = 'SearchAttributesMissingError';
  }
}

const TYPE_NUMBERS = new Map<number, string>(
  Object.values(SearchAttributeType).map((type) => [encodeSearchAttributeIndexedValueType(type)!, cliTypeName(type)]),
);
const typeNumber = (type: SearchAttributeType) => encodeSearchAttributeIndexedValueType(type)!;
const describeError = (err: unknown) => (isGrpcServiceError(err) ? err.details || err.message : String(err));

/**
 * Makes sure `namespace` has every attribute of SEARCH_ATTRIBUTES: adds the
 * missing ones through the operator service (allowed on the dev server and on
 * a self-hosted cluster; a managed one may refuse), else throws
 * SearchAttributesMissingError naming them with the command that adds them.
 * A server that does not let the service list them is trusted, with a
 * warning. Two processes starting at once may both add: the second finds
 * them there. Resolves with the attributes this call added.
 */
export async function ensureSearchAttributes(
  operator: SearchAttributeOperator,
  options: { namespace: string; address?: string; logger?: Logger },
): Promise<SearchAttributeName[]> {
  const { namespace, address, logger } = options;
  const names = Object.keys(SEARCH_ATTRIBUTES) as SearchAttributeName[];
  const list = async () => {
    try {
      return (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
    } catch (err) {
      if (isGrpcServiceError(err) && err.code === NOT_FOUND) {
        throw new Error(
          `Temporal namespace "${namespace}" not found (${describeError(err)}); create it: temporal operator namespace create --namespace ${namespace}`,
          {
            cause: err,
          },
        );
      }
      if (isGrpcServiceError(err) && (err.code === PERMISSION_DENIED || err.code === UNIMPLEMENTED)) return undefined;
      throw err;
    }
  };

  const present = await list();
  if (!present) {
    logger?.warn(
      { namespace, command: searchAttributeCreateCommand(names, namespace, address) },
      'Temporal does not let this service list search attributes; make sure they exist, or starting runs will fail',
    );
    return [];
  }
  const wrongType = names
    .filter((n) => n in present && present[n] !== typeNumber(SEARCH_ATTRIBUTES[n]))
    .map((n) => ({ name: n, expected: cliTypeName(SEARCH_ATTRIBUTES[n]), actual: TYPE_NUMBERS.get(present[n]) ?? `type ${present[n]}` }));
  if (wrongType.length) throw new SearchAttributesMissingError(namespace, [], wrongType, '');
  const missing = names.filter((n) => !(n in present));
  if (!missing.length) return [];

  let refusal: string | undefined;
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((n) => [n, typeNumber(SEARCH_ATTRIBUTES[n])])) });
  } catch (err) {
    refusal = describeError(err);
  }
  // Listed again: another process may have added them meanwhile, and an add that "succeeded" must show.
  const after = (await list()) ?? {};
  const still = missing.filter((n) => !(n in after));
  if (still.length) throw new SearchAttributesMissingError(namespace, still, [], searchAttributeCreateCommand(still, namespace, address), refusal);
  if (refusal) return []; // another process added them
  logger?.info({ namespace, added: missing }, 'registered search attributes on the Temporal namespace');
  return missing;
}

/** At start: connects to Temporal just for ensureSearchAttributes (the worker's native connection has no operator service). */
export async function checkSearchAttributes(address: string, namespace: string, logger: Logger): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await ensureSearchAttributes(connection.operatorService, { namespace, address, logger });
  } finally {
    await connection.close();
  }
}
