import type { DataSource } from 'typeorm';

/** Where a pinned output came from: a step's record in a run (a test of the draft is a run too), or typed in. */
export type PinSource = { executionId: string } | { given: true };

export interface Pin {
  output: unknown;
  from: PinSource;
  pinnedAt: string;
}

export interface DraftRow {
  workflowId: string;
  userId: string;
  baseVersion: number;
  /** As the person last saved it: JSON, maybe unfinished; checked only when tested or published. */
  definition: unknown;
  pins: Record<string, Pin>;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `workflow_id AS "workflowId", user_id AS "userId", base_version AS "baseVersion", definition, pins,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Drafts (table workflow_drafts): one per workflow and person. Every
 * statement names the organization: a draft of another organization's
 * workflow is never read, written or deleted.
 */
export class DraftsRepository {
  constructor(private readonly db: DataSource) {}

  async find(organizationId: string, workflowId: string, userId: string): Promise<DraftRow | undefined> {
    const rows: DraftRow[] = await this.db.query(`SELECT ${COLUMNS} FROM workflow_drafts WHERE organization_id = $1 AND workflow_id = $2 AND user_id = $3`, [
      organizationId,
      workflowId,
      userId,
    ]);
    return rows[0];
  }

  /** Writes the draft's definition (a first save creates it, keeping no pins); undefined when the organization has no such workflow. */
  async save(organizationId: string, workflowId: string, userId: string, baseVersion: number, definition: unknown): Promise<DraftRow | undefined> {
    const rows: DraftRow[] = await this.db.query(
      `INSERT INTO workflow_drafts (workflow_id, user_id, organization_id, base_version, definition)
       SELECT w.id, $3, w.organization_id, $4, $5::json FROM workflows w WHERE w.id = $2 AND w.organization_id = $1
       ON CONFLICT (workflow_id, user_id) DO UPDATE SET base_version = EXCLUDED.base_version, definition = EXCLUDED.definition, updated_at = now()
       RETURNING ${COLUMNS}`,
      [organizationId, workflowId, userId, baseVersion, JSON.stringify(definition)],
    );
    return rows[0];
  }

  /** Sets (or, with undefined, removes) one step's pin; undefined when there is no draft. */
  async pin(organizationId: string, workflowId: string, userId: string, stepId: string, pin: Pin | undefined): Promise<DraftRow | undefined> {
    const change = pin === undefined ? `pins - $4::text` : `pins || jsonb_build_object($4::text, $5::jsonb)`;
    const rows: [DraftRow[], number] = await this.db.query(
      `UPDATE workflow_drafts SET pins = ${change}, updated_at = now()
       WHERE organization_id = $1 AND workflow_id = $2 AND user_id = $3 RETURNING ${COLUMNS}`,
      pin === undefined ? [organizationId, workflowId, userId, stepId] : [organizationId, workflowId, userId, stepId, JSON.stringify(pin)],
    );
    return rows[0][0];
  }

  async delete(organizationId: string, workflowId: string, userId: string): Promise<DraftRow | undefined> {
    const rows: [DraftRow[], number] = await this.db.query(
      `DELETE FROM workflow_drafts WHERE organization_id = $1 AND workflow_id = $2 AND user_id = $3 RETURNING ${COLUMNS}`,
      [organizationId, workflowId, userId],
    );
    return rows[0][0];
  }

  /** Who else has a draft of the workflow, newest first: shown as "also being edited by". */
  async others(organizationId: string, workflowId: string, userId: string): Promise<Array<{ email: string; updatedAt: Date }>> {
    return this.db.query(
      `SELECT u.email, d.updated_at AS "updatedAt" FROM workflow_drafts d JOIN users u ON u.id = d.user_id
       WHERE d.organization_id = $1 AND d.workflow_id = $2 AND d.user_id <> $3 ORDER BY d.updated_at DESC LIMIT 20`,
      [organizationId, workflowId, userId],
    );
  }
}
