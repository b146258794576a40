import type { EntityManager } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { ScheduleTrigger } from './schedule-trigger.entity';

const uniqueName = uniqueNameIndex('schedule_triggers_org_name_key', 'schedule trigger');

/** A run the trigger started, as its read shows it. */
export interface TriggerRun {
  id: string;
  status: string;
  startedAt: Date;
  finishedAt: Date | null;
}

/**
 * Every method takes the organization: there is no unscoped read. Built over
 * the pool's EntityManager, or a transaction's (a package uninstall reads a
 * workflow's triggers inside its own transaction; `transaction` is then a
 * savepoint of it).
 */
export class ScheduleTriggersRepository {
  constructor(private readonly manager: EntityManager) {}

  private repo(manager: EntityManager = this.manager) {
    return manager.getRepository(ScheduleTrigger);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.manager.transaction(work);
  }

  async list(organizationId: string, filter: { workflowId?: string }, page: Page): Promise<{ total: number; data: ScheduleTrigger[] }> {
    const [data, total] = await this.repo().findAndCount({
      where: { organizationId, ...(filter.workflowId ? { workflowId: filter.workflowId } : {}) },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  count(organizationId: string): Promise<number> {
    return this.repo().countBy({ organizationId });
  }

  findById(organizationId: string, id: string): Promise<ScheduleTrigger | null> {
    return this.repo().findOneBy({ organizationId, id });
  }

  /** Locks the trigger row: an update and its schedule's update commit together. */
  lock(organizationId: string, id: string, manager: EntityManager): Promise<ScheduleTrigger | null> {
    return this.repo(manager).findOne({ where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The ids of a workflow's triggers (bounded: an organization has at most MAX_SCHEDULE_TRIGGERS). */
  async idsOfWorkflow(organizationId: string, workflowId: string): Promise<string[]> {
    const rows = await this.repo().find({ select: { id: true }, where: { organizationId, workflowId }, take: 1000 });
    return rows.map((r) => r.id);
  }

  /** The trigger's latest runs, newest first. */
  lastRuns(organizationId: string, triggerId: string, limit: number): Promise<TriggerRun[]> {
    return this.manager.query(
      `SELECT id, status, started_at AS "startedAt", finished_at AS "finishedAt" FROM executions
       WHERE organization_id = $1 AND trigger_id = $2 ORDER BY started_at DESC, id DESC LIMIT $3`,
      [organizationId, triggerId, limit],
    );
  }

  async insert(trigger: ScheduleTrigger, manager?: EntityManager): Promise<void> {
    await uniqueName(trigger.name, () => this.repo(manager).insert(trigger));
  }

  async update(organizationId: string, id: string, changes: Partial<ScheduleTrigger>, manager?: EntityManager): Promise<void> {
    await uniqueName(changes.name, () => this.repo(manager).update({ organizationId, id }, changes));
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    return ((await this.repo().delete({ organizationId, id })).affected ?? 0) > 0;
  }
}
