import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export interface DiagnosticsResult {
  organizationId: string;
  databaseTime: string;
  organizationName: string | null;
}

/**
 * Proves the whole chain an execution needs: Temporal → worker → activity →
 * PostgreSQL. test/temporal-worker.integration.test.ts runs it; an operator
 * runs it with the Temporal CLI against a live deployment:
 * `temporal workflow execute --type diagnosticsWorkflow --task-queue <TEMPORAL_TASK_QUEUE> --input '"<organization id>"'`.
 */
export async function diagnosticsWorkflow(organizationId: string): Promise<DiagnosticsResult> {
  const db = await checkDatabase(organizationId);
  return { organizationId, databaseTime: db.now, organizationName: db.organizationName };
}
