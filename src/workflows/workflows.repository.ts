import type { EntityManager } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { WorkflowVersion } from './workflow-version.entity';
import { Workflow } from './workflow.entity';

const uniqueName = uniqueNameIndex('workflows_org_name_key', 'workflow');

/** A workflow with its current definition and the name of its default environment. */
export interface CurrentWorkflow {
  workflow: Workflow;
  version: WorkflowVersion;
  defaultEnvironmentName: string | null;
}

const CURRENT = `
  SELECT w.id, w.suid, w.organization_id, w.name, w.current_version, w.default_environment_id, w.created_by, w.created_at, w.updated_at,
         v.definition, v.created_by AS version_created_by, v.created_at AS version_created_at, e.name AS environment_name
  FROM workflows w
  JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.current_version
  LEFT JOIN environments e ON e.id = w.default_environment_id AND e.organization_id = w.organization_id`;

/** A row of CURRENT as pg returns it. */
interface CurrentRow {
  id: string;
  suid: string;
  organization_id: string;
  name: string;
  current_version: number;
  default_environment_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  definition: WorkflowVersion['definition'];
  version_created_by: string;
  version_created_at: Date;
  environment_name: string | null;
}

function toCurrent(r: CurrentRow): CurrentWorkflow {
  const workflow = Object.assign(new Workflow(), {
    id: r.id,
    suid: r.suid,
    organizationId: r.organization_id,
    name: r.name,
    currentVersion: r.current_version,
    defaultEnvironmentId: r.default_environment_id,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  const version = Object.assign(new WorkflowVersion(), {
    workflowId: r.id,
    version: r.current_version,
    definition: r.definition,
    createdBy: r.version_created_by,
    createdAt: r.version_created_at,
  });
  return { workflow, version, defaultEnvironmentName: r.environment_name };
}

/** Every method takes the organization: there is no unscoped read. */
export class WorkflowsRepository {
  constructor(private readonly manager: EntityManager) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.manager.transaction(work);
  }

  /** Workflows by name, each with its current version and default environment's name, in one query. */
  async listCurrent(organizationId: string, page: Page): Promise<{ total: number; data: CurrentWorkflow[] }> {
    const [rows, total] = await Promise.all([
      this.manager.query(`${CURRENT} WHERE w.organization_id = $1 ORDER BY w.name LIMIT $2 OFFSET $3`, [organizationId, page.limit, page.offset]),
      this.manager.getRepository(Workflow).countBy({ organizationId }),
    ]);
    return { total, data: rows.map(toCurrent) };
  }

  async findCurrent(organizationId: string, id: string): Promise<CurrentWorkflow | null> {
    const rows = await this.manager.query(`${CURRENT} WHERE w.organization_id = $1 AND w.id = $2`, [organizationId, id]);
    return rows.length ? toCurrent(rows[0]) : null;
  }

  /** By name, as an agent's workflow tool names the workflow it runs. */
  async findCurrentByName(organizationId: string, name: string): Promise<CurrentWorkflow | null> {
    const rows = await this.manager.query(`${CURRENT} WHERE w.organization_id = $1 AND w.name = $2`, [organizationId, name]);
    return rows.length ? toCurrent(rows[0]) : null;
  }

  async findById(organizationId: string, id: string, manager: EntityManager = this.manager): Promise<Workflow | null> {
    return manager.findOneBy(Workflow, { organizationId, id });
  }

  /** Locks the workflow row: concurrent updates take versions one after the other. */
  async lock(organizationId: string, id: string, manager: EntityManager): Promise<Workflow | null> {
    return manager.getRepository(Workflow).findOne({ where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  async findVersion(organizationId: string, workflowId: string, version: number): Promise<WorkflowVersion | null> {
    return this.versionsOf(organizationId, workflowId).andWhere('v.version = :version', { version }).getOne();
  }

  async listVersions(organizationId: string, workflowId: string, page: Page): Promise<{ total: number; data: WorkflowVersion[] }> {
    const [data, total] = await this.versionsOf(organizationId, workflowId).orderBy('v.version', 'DESC').take(page.limit).skip(page.offset).getManyAndCount();
    return { total, data };
  }

  /** Versions reach the organization through their workflow. */
  private versionsOf(organizationId: string, workflowId: string) {
    return this.manager
      .getRepository(WorkflowVersion)
      .createQueryBuilder('v')
      .innerJoin(Workflow, 'w', 'w.id = v.workflowId')
      .where('w.organizationId = :organizationId AND v.workflowId = :workflowId', { organizationId, workflowId });
  }

  async insert(workflow: Workflow, manager: EntityManager): Promise<void> {
    await uniqueName(workflow.name, () => manager.insert(Workflow, workflow));
  }

  async update(organizationId: string, id: string, changes: Partial<Workflow>, manager: EntityManager = this.manager): Promise<void> {
    await uniqueName(changes.name, () => manager.update(Workflow, { organizationId, id }, changes));
  }

  async insertVersion(version: WorkflowVersion, manager: EntityManager): Promise<void> {
    await manager.insert(WorkflowVersion, version);
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.manager.getRepository(Workflow).delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }
}
