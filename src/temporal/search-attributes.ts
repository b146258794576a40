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
