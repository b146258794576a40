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
 * Proves the whole chain an execution needs: API → Temporal → worker →
 * activity → PostgreSQL. Run with `npm run admin -- diagnostics`.
 */
export async function diagnosticsWorkflow(organizationId: string): Promise<DiagnosticsResult> {
  const db = await checkDatabase(organizationId);
  return { organizationId, databaseTime: db.now, organizationName: db.organizationName };
}
