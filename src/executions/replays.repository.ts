import type { DataSource } from 'typeorm';

/** A top-level step record of a run, as a replay plans from it; `output` only for core.if steps (the branch it took). */
export interface RecordedStep {
  stepId: string;
  stepType: string;
  seq: number;
  status: 'completed' | 'failed';
  output?: unknown;
}

/** How a replay's step record relates to the original's (see ReplaysRepository.marks). */
export interface ReplayMark {
  reused: boolean;
  changed: boolean | null;
}

/** What a replay copies from its original before it starts: reused records, replaced outputs, re-sealed outputs. */
export interface ReusedCopy {
  stepIds: string[];
  /** Outputs given in place of the recorded ones (`outputs` of the request), by step id. */
  replaced: Record<string, unknown>;
  /** Sealed outputs sealed anew for the replay (a seal is bound to its execution and step), by step id. */
  sealed: Record<string, string>;
}

/** Step records as replays from a step read and copy them; every statement is scoped to the organization. */
export class ReplaysRepository {
  constructor(private readonly db: DataSource) {}

  /** A run's top-level step records in the order it ran them (bounded: a definition has at most a few hundred steps). */
  async recordedSteps(organizationId: string, executionId: string): Promise<RecordedStep[]> {
    return this.db.query(
      `SELECT s.step_id AS "stepId", s.step_type AS "stepType", s.seq, s.status,
              CASE WHEN s.step_type = 'core.if' THEN s.output END AS output
       FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.parent_step_id IS NULL
       ORDER BY s.seq LIMIT 10000`,
      [organizationId, executionId],
    );
  }

  /** The sealed originals among these steps' outputs, by step id. */
  async sealedOutputs(organizationId: string, executionId: string, stepIds: string[]): Promise<Map<string, string>> {
    const rows: Array<{ stepId: string; sealed: string }> = await this.db.query(
      `SELECT s.step_id AS "stepId", s.sealed_output AS sealed FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.step_id = ANY($3) AND s.sealed_output IS NOT NULL`,
      [organizationId, executionId, stepIds],
    );
    return new Map(rows.map((r) => [r.stepId, r.sealed]));
  }

  /**
   * Copies the records of `copy.stepIds` (and their sub-steps: an agent's
   * calls) from `from` into the replay `to`, marked `reused`, or `replaced`
   * with the given output. Once: a record already copied is left as it is,
   * so a retried start copies nothing twice. Both runs are the organization's.
   */
  async copyReused(organizationId: string, from: string, to: string, copy: ReusedCopy): Promise<void> {
    const replaced = `($5::jsonb -> o.step_id)`;
    await this.db.query(
      `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, input, output, input_bytes, output_bytes,
         error, started_at, finished_at, parent_step_id, sub_seq, sealed_output, replay_source)
       SELECT t.id, o.step_id, o.step_type, o.seq, o.status, o.attempt, o.input,
              CASE WHEN ${replaced} IS NOT NULL THEN ${replaced} ELSE o.output END, o.input_bytes,
              CASE WHEN ${replaced} IS NOT NULL THEN octet_length(${replaced}::text) ELSE o.output_bytes END,
              o.error, o.started_at, o.finished_at, o.parent_step_id, o.sub_seq,
              CASE WHEN ${replaced} IS NOT NULL THEN NULL ELSE $6::jsonb ->> o.step_id END,
              CASE WHEN ${replaced} IS NOT NULL THEN 'replaced' ELSE 'reused' END
       FROM execution_steps o
       JOIN executions f ON f.id = o.execution_id AND f.organization_id = $1
       JOIN executions t ON t.id = $3 AND t.organization_id = $1
       WHERE o.execution_id = $2 AND (o.step_id = ANY($4) OR o.parent_step_id = ANY($4))
       ON CONFLICT (execution_id, step_id) DO NOTHING`,
      [organizationId, from, to, copy.stepIds, JSON.stringify(copy.replaced), JSON.stringify(copy.sealed)],
    );
  }

  /**
   * Records outputs given for steps (a draft's pins) in run `executionId`
   * before it starts, as completed, so the steps after them read them as a
   * replay reads reused ones. Once, like copyReused. The run is the organization's.
   */
  async insertGiven(
    organizationId: string,
    executionId: string,
    given: Array<{ stepId: string; stepType: string; seq: number; output: unknown }>,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, output, output_bytes, started_at, finished_at, replay_source)
       SELECT e.id, g."stepId", g."stepType", g.seq, 'completed', 1, g.output, octet_length(g.output::text), now(), now(), 'replaced'
       FROM executions e, jsonb_to_recordset($3::jsonb) AS g("stepId" text, "stepType" text, seq integer, output jsonb)
       WHERE e.id = $2 AND e.organization_id = $1
       ON CONFLICT (execution_id, step_id) DO NOTHING`,
      [organizationId, executionId, JSON.stringify(given)],
    );
  }

  /**
   * How each step record of a replay relates to its original: reused
   * (`changed` false), replaced (`changed` true), or run again (`changed`:
   * whether its recorded, masked output differs from the original's as JSON;
   * null when the original recorded no such step, or is gone).
   */
  async marks(organizationId: string, executionId: string): Promise<Map<string, ReplayMark>> {
    const rows: Array<{ stepId: string; source: 'reused' | 'replaced' | null; inOriginal: boolean; differs: boolean }> = await this.db.query(
      `SELECT s.step_id AS "stepId", s.replay_source AS source, o.step_id IS NOT NULL AS "inOriginal", o.output IS DISTINCT FROM s.output AS differs
       FROM execution_steps s
       JOIN executions e ON e.id = s.execution_id AND e.organization_id = $1
       LEFT JOIN executions oe ON oe.id = e.replay_of AND oe.organization_id = $1
       LEFT JOIN execution_steps o ON o.execution_id = oe.id AND o.step_id = s.step_id
       WHERE s.execution_id = $2`,
      [organizationId, executionId],
    );
    return new Map(
      rows.map((r) => [
        r.stepId,
        r.source === null ? { reused: false, changed: r.inOriginal ? r.differs : null } : { reused: true, changed: r.source === 'replaced' },
      ]),
    );
  }
}
