import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One immutable definition of a workflow; runs pin the version they started with. */
@Entity({ name: 'workflow_versions' })
export class WorkflowVersion {
  @PrimaryColumn({ name: 'workflow_id', type: 'uuid' })
  workflowId!: string;

  @PrimaryColumn({ type: 'integer' })
  version!: number;

  /**
   * A WorkflowDefinitionInput, validated before it was stored, with its keys in the order written (written-order.ts).
   * `json`, not `jsonb`: jsonb sorts every object's keys, and a definition comes back as it was written.
   */
  @Column({ type: 'json' })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's insert/update take QueryDeepPartialEntity, which turns unknown values into {}: a json object typed Record<string, unknown> cannot be written
  definition!: Record<string, any>;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
