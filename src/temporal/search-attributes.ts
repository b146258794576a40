import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes every run carries, so operators can find runs by
 * tenant and workflow in the Temporal Web UI and with `temporal workflow list`.
 * The embedded dev server is started with them; a real cluster needs them
 * registered once (`temporal operator search-attribute create`).
 */
export const SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  WorkflowName: 'Keyword',
  TriggerName: 'Keyword',
  // Data feed schedules and sync runs (src/data-feeds).
  DataSourceId: 'Keyword',
  FeedKey: 'Keyword',
} as const;

const keyword = (name: keyof typeof SEARCH_ATTRIBUTES) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);

/** The typed keys of SEARCH_ATTRIBUTES, for the runs and schedules that set them. */
export const SEARCH_ATTRIBUTE_KEYS = {
  OrganizationId: keyword('OrganizationId'),
  WorkflowName: keyword('WorkflowName'),
  TriggerName: keyword('TriggerName'),
  DataSourceId: keyword('DataSourceId'),
  FeedKey: keyword('FeedKey'),
};
