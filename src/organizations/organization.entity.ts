import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const PLAN_TIERS = ['free', 'team', 'business', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

@Entity({ name: 'organizations' })
export class Organization {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** Short public id used in webhook URLs (`/w/@<suid>/<trigger>`). */
  @Column({ type: 'text', unique: true })
  suid!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  plan!: PlanTier;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
