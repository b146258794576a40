import { z } from '../openapi/zod';
import { MAX_FIELD_ISSUES, toFieldIssues } from './validation';

describe('toFieldIssues', () => {
  it('lists the first 100 details of a huge bad array, then says more were not listed', () => {
    const result = z.object({ tags: z.array(z.string()) }).safeParse({ tags: Array.from({ length: 60_000 }, () => 1) });
    const details = toFieldIssues(result.error!);
    expect(details).toHaveLength(101);
    expect(details[0].path).toBe('tags.0');
    expect(details[99].path).toBe('tags.99');
    expect(details[100]).toEqual({ path: '(more)', message: 'more problems like these were not listed (the first 100 are)' });
    expect(MAX_FIELD_ISSUES).toBe(100);
  });

  it('lists every detail up to the cap', () => {
    const result = z.object({ tags: z.array(z.string()) }).safeParse({ tags: Array.from({ length: 100 }, () => 1) });
    const details = toFieldIssues(result.error!);
    expect(details).toHaveLength(100);
    expect(details.some((d) => d.path === '(more)')).toBe(false);
  });
});
