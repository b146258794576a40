import { z } from '../openapi/zod';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** `?limit=&offset=` for list endpoints: limit 1..1000 (default 100), offset from 0. */
export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).default(0),
});
export type Page = z.output<typeof PageQuery>;
