import type { ActivityDeps } from './deps';

export function createDiagnosticsActivities({ diagnostics }: Pick<ActivityDeps, 'diagnostics'>) {
  return {
    /** Reads the database clock and the organization's name (null when it does not exist). */
    async checkDatabase(organizationId: string): Promise<{ now: string; organizationName: string | null }> {
      const { now, organizationName } = await diagnostics.clockAndOrganizationName(organizationId);
      return { now: now.toISOString(), organizationName };
    },
  };
}
