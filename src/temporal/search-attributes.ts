import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';

/**
 * The custom search attributes the service sets, the one list of them: runs
 * carry OrganizationId, WorkflowName and TriggerName, and WaitingFor while
 * parked at a `core.wait` step (`timer`, or `event:<name>`; workflows/waits.ts
 * spells the key out); data feed schedules and
 * their sync runs (src/data-feeds) OrganizationId, DataSourceId and FeedKey.
 * Operators find runs by them in the Temporal Web UI and with
 * `temporal workflow list -q 'WorkflowName="orders"'`.
 *
 * The embedded dev server is started with them (`--search-attribute`), and
 * every process checks at start that its namespace has them
 * (./search-attribute-check.ts).
 */
export const SEARCH_ATTRIBUTES = {
  OrganizationId: SearchAttributeType.KEYWORD,
  WorkflowName: SearchAttributeType.KEYWORD,
  TriggerName: SearchAttributeType.KEYWORD,
  WaitingFor: SearchAttributeType.KEYWORD,
  DeliveryId: SearchAttributeType.KEYWORD,
  DataSourceId: SearchAttributeType.KEYWORD,
  FeedKey: SearchAttributeType.KEYWORD,
} as const satisfies Record<string, SearchAttributeType>;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

type Keys = { [N in SearchAttributeName]: SearchAttributeKey<(typeof SEARCH_ATTRIBUTES)[N]> };

/** The typed keys of SEARCH_ATTRIBUTES, for the runs and schedules that set them. */
export const SEARCH_ATTRIBUTE_KEYS = Object.fromEntries(
  Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, defineSearchAttributeKey(name, type)]),
) as Keys;

/** How the `temporal` CLI spells each type (`--type Keyword`, `--search-attribute Name=Keyword`). */
const CLI_TYPE_NAMES: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

export const cliTypeName = (type: SearchAttributeType): string => CLI_TYPE_NAMES[type];

/** `temporal server start-dev` arguments that register every attribute on the dev server's default namespace. */
export function devServerSearchAttributeArgs(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${cliTypeName(type)}`]);
}

/**
 * The command an operator runs to add the given attributes to a namespace: one
 * `--name … --type …` pair each. `--address` is left out when not given: the
 * CLI then uses TEMPORAL_ADDRESS or its default.
 */
export function searchAttributeCreateCommand(names: readonly SearchAttributeName[], namespace: string, address?: string): string {
  return [
    'temporal operator search-attribute create',
    ...(address ? [`--address ${address}`] : []),
    `--namespace ${namespace}`,
    ...names.map((name) => `--name ${name} --type ${cliTypeName(SEARCH_ATTRIBUTES[name])}`),
  ].join(' ');
}
