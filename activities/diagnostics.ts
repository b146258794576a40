import type { ActivityDeps } from './deps';

export function createDiagnosticsActivities({ db }: ActivityDeps) {
  return {
    /** Reads the database clock and the organization's name (null when it does not exist). */
    async checkDatabase(organizationId: string): Promise<{ now: string; organizationName: string | null }> {
      const rows: Array<{ now: Date; name: string | null }> = await db.query(`SELECT now() AS now, (SELECT name FROM organizations WHERE id = $1) AS name`, [
        organizationId,
      ]);
      return { now: rows[0].now.toISOString(), organizationName: rows[0].name };
    },
  };
}
