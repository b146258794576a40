import { Column, Entity } from 'typeorm';
import { OrganizationResource } from '../db/organization-resource';

export type OverlapPolicy = 'skip' | 'buffer_one' | 'allow_all';

/** A schedule trigger: when its workflow runs (cron in a time zone, or every N seconds) and with what. Its Temporal Schedule is `schedule-trigger:<id>`. */
@Entity({ name: 'schedule_triggers' })
export class ScheduleTrigger extends OrganizationResource {
  @Column({ name: 'workflow_id', type: 'uuid' })
  workflowId!: string;

  @Column({ type: 'text' })
  name!: string;

  /** Five fields; null for an interval trigger. */
  @Column({ type: 'text', nullable: true })
  cron!: string | null;

  /** IANA zone the cron expression is read in. */
  @Column({ type: 'text' })
  timezone!: string;

  @Column({ name: 'interval_seconds', type: 'integer', nullable: true })
  intervalSeconds!: number | null;

  /** The static `initial` of every run it starts. */
  @Column({ type: 'jsonb' })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as WorkflowVersion.definition: TypeORM's insert/update cannot take a jsonb object typed Record<string, unknown>
  initial!: Record<string, any>;

  /** Null: the workflow's default environment. */
  @Column({ name: 'environment_id', type: 'uuid', nullable: true })
  environmentId!: string | null;

  @Column({ name: 'overlap_policy', type: 'text' })
  overlapPolicy!: OverlapPolicy;

  @Column({ name: 'catchup_window_seconds', type: 'integer' })
  catchupWindowSeconds!: number;

  @Column({ type: 'boolean' })
  paused!: boolean;
}
