import type { SetURLSearchParams } from 'react-router';

/** The runs list's filters, as they stand in the page's URL query (so reload, links and back/forward keep them). */
export interface RunFilters {
  workflowId: string;
  status: string;
  mode: string;
  triggerId: string;
  /** datetime-local values (the browser's local time), as typed. */
  startedAfter: string;
  startedBefore: string;
  /** The id of the webhook delivery that started the run (its trigger's delivery id source). */
  deliveryId: string;
  offset: number;
}

export const FILTER_KEYS = ['workflowId', 'status', 'mode', 'triggerId', 'startedAfter', 'startedBefore', 'deliveryId'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export function readFilters(params: URLSearchParams): RunFilters {
  const value = (key: FilterKey) => params.get(key) ?? '';
  const offset = Number(params.get('offset') ?? 0);
  return {
    workflowId: value('workflowId'),
    status: value('status'),
    mode: value('mode'),
    triggerId: value('triggerId'),
    startedAfter: value('startedAfter'),
    startedBefore: value('startedBefore'),
    deliveryId: value('deliveryId'),
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** Sets one filter (empty clears it) and goes back to the first page; a workflow change drops a trigger of another workflow. */
export function changeFilter(setParams: SetURLSearchParams, key: FilterKey, value: string): void {
  setParams((params) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key === 'workflowId') next.delete('triggerId');
    next.delete('offset');
    return next;
  });
}

/** A datetime-local value as the ISO 8601 instant the API reads; undefined when empty or unreadable. */
export function toInstant(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** GET /executions's query for these filters; `mode`, `triggerId` and `deliveryId` are the API's names for them. */
export function executionsQuery(filters: RunFilters, limit: number) {
  return {
    workflowId: filters.workflowId,
    status: filters.status,
    mode: filters.mode,
    triggerId: filters.triggerId,
    startedAfter: toInstant(filters.startedAfter),
    startedBefore: toInstant(filters.startedBefore),
    deliveryId: filters.deliveryId.trim(),
    limit,
    offset: filters.offset,
  };
}
