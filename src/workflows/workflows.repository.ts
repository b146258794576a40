import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { WorkflowVersion } from './workflow-version.entity';
import { Workflow } from './workflow.entity';

export class DuplicateWorkflowName extends Error {}

/** Every method takes the organization: there is no unscoped read. */
export class WorkflowsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async list(organizationId: string, page: Page): Promise<{ total: number; data: Workflow[] }> {
    const [data, total] = await this.db.getRepository(Workflow).findAndCount({
      where: { organizationId },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  async findById(organizationId: string, id: string, manager: EntityManager = this.db.manager): Promise<Workflow | null> {
    return manager.findOneBy(Workflow, { organizationId, id });
  }

  /** Locks the workflow row: concurrent updates take versions one after the other. */
  async lock(organizationId: string, id: string, manager: EntityManager): Promise<Workflow | null> {
    return manager.getRepository(Workflow).findOne({ where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  async findVersion(workflowId: string, version: number, manager: EntityManager = this.db.manager): Promise<WorkflowVersion | null> {
    return manager.findOneBy(WorkflowVersion, { workflowId, version });
  }

  async listVersions(workflowId: string, page: Page): Promise<{ total: number; data: WorkflowVersion[] }> {
    const [data, total] = await this.db.getRepository(WorkflowVersion).findAndCount({
      where: { workflowId },
      order: { version: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  async insert(workflow: Workflow, manager: EntityManager): Promise<void> {
    await guardName(() => manager.insert(Workflow, workflow));
  }

  async update(organizationId: string, id: string, changes: Partial<Workflow>, manager: EntityManager = this.db.manager): Promise<void> {
    await guardName(() => manager.update(Workflow, { organizationId, id }, changes));
  }

  async insertVersion(version: WorkflowVersion, manager: EntityManager): Promise<void> {
    await manager.insert(WorkflowVersion, version);
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.db.getRepository(Workflow).delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }
}

async function guardName(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (isUniqueViolation(err, 'workflows_org_name_key')) throw new DuplicateWorkflowName();
    throw err;
  }
}
