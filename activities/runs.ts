import type { RunEnd } from '../workflows/run.types';
import type { ActivityDeps } from './deps';

export function createRunActivities({ executions }: ActivityDeps) {
  return {
    /** The execution record's final status, so listing runs needs no call to Temporal. */
    async recordRunEnd(end: RunEnd): Promise<void> {
      await executions.finish(end.organizationId, end.executionId, end.status, end.error ?? null);
    },
  };
}
