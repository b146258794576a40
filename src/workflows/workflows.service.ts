import type { Liquid } from 'liquidjs';
import type { EnvironmentsService } from '../environments/environments.service';
import { NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import { checkDefinition } from './definition-check';
import { checkReferences } from './workflow-references';
import type { WorkflowDefinitionInput } from './definition.schemas';
import { WorkflowVersion } from './workflow-version.entity';
import { Workflow } from './workflow.entity';
import type { WorkflowSettingsInput } from './workflows.schemas';
import { type CurrentWorkflow, type WorkflowsRepository } from './workflows.repository';

/**
 * Workflow definitions and their versions. A definition is checked whole
 * (schema at the edge, then the cross-step rules) before anything is stored;
 * each update adds a version, so a run pinned to an older one is unaffected.
 */
export class WorkflowsService {
  constructor(
    private readonly repo: WorkflowsRepository,
    private readonly environments: EnvironmentsService,
    private readonly liquid: Liquid,
  ) {}

  private readonly deleteHooks: Array<(organizationId: string, workflowId: string) => Promise<void>> = [];

  list(organizationId: string, page: Page) {
    return this.repo.listCurrent(organizationId, page);
  }

  async get(organizationId: string, id: string): Promise<CurrentWorkflow> {
    const current = await this.repo.findCurrent(organizationId, id);
    if (!current) throw new NotFoundError('Workflow');
    return current;
  }

  /** 404 unless the workflow exists in the organization; reads nothing else. */
  async assertExists(organizationId: string, id: string): Promise<void> {
    if (!(await this.repo.findById(organizationId, id))) throw new NotFoundError('Workflow');
  }

  async create(organizationId: string, userId: string, definition: WorkflowDefinitionInput, settings?: WorkflowSettingsInput) {
    await this.check(organizationId, definition);
    const defaultEnvironmentId = await this.environmentId(organizationId, settings?.defaultEnvironment);
    const id = newId();
    await this.repo.transaction(async (manager) => {
      await this.repo.insert(
        Object.assign(new Workflow(), {
          id,
          suid: newSuid(),
          organizationId,
          name: definition.name,
          currentVersion: 1,
          defaultEnvironmentId: defaultEnvironmentId ?? null,
          createdBy: userId,
        }),
        manager,
      );
      await this.repo.insertVersion(Object.assign(new WorkflowVersion(), { workflowId: id, version: 1, definition, createdBy: userId }), manager);
    });
    return this.get(organizationId, id);
  }

  /** Stores `definition` as the next version (settings given are applied too). */
  async update(organizationId: string, userId: string, id: string, definition: WorkflowDefinitionInput, settings?: WorkflowSettingsInput) {
    await this.check(organizationId, definition, id);
    const defaultEnvironmentId = await this.environmentId(organizationId, settings?.defaultEnvironment);
    await this.repo.transaction(async (manager) => {
      const workflow = await this.repo.lock(organizationId, id, manager);
      if (!workflow) throw new NotFoundError('Workflow');
      const version = workflow.currentVersion + 1;
      await this.repo.insertVersion(Object.assign(new WorkflowVersion(), { workflowId: id, version, definition, createdBy: userId }), manager);
      await this.repo.update(
        organizationId,
        id,
        { name: definition.name, currentVersion: version, ...(defaultEnvironmentId !== undefined ? { defaultEnvironmentId } : {}) },
        manager,
      );
    });
    return this.get(organizationId, id);
  }

  /** Changes settings without a new version: they are not part of the definition. */
  async updateSettings(organizationId: string, id: string, settings: WorkflowSettingsInput) {
    await this.assertExists(organizationId, id);
    // PATCH …/settings takes the settings themselves: the field is `defaultEnvironment` there.
    const defaultEnvironmentId = await this.environmentId(organizationId, settings.defaultEnvironment, 'defaultEnvironment');
    if (defaultEnvironmentId !== undefined) await this.repo.update(organizationId, id, { defaultEnvironmentId });
    return this.get(organizationId, id);
  }

  /** Work that must happen before a workflow's rows go: its schedule triggers' Temporal Schedules, which no cascade reaches. */
  beforeDelete(hook: (organizationId: string, workflowId: string) => Promise<void>): void {
    this.deleteHooks.push(hook);
  }

  async delete(organizationId: string, id: string) {
    const existing = await this.get(organizationId, id);
    for (const hook of this.deleteHooks) await hook(organizationId, id);
    if (!(await this.repo.delete(organizationId, id))) throw new NotFoundError('Workflow');
    return existing;
  }

  async listVersions(organizationId: string, id: string, page: Page) {
    await this.assertExists(organizationId, id);
    return this.repo.listVersions(organizationId, id, page);
  }

  async getVersion(organizationId: string, id: string, version: number): Promise<WorkflowVersion> {
    await this.assertExists(organizationId, id);
    const found = await this.repo.findVersion(organizationId, id, version);
    if (!found) throw new NotFoundError(`Version ${version}`);
    return found;
  }

  /** The definition's own rules, then (when those hold) the workflows it names (workflow-references.ts). `savedId`: on update. */
  async check(organizationId: string, definition: WorkflowDefinitionInput, savedId?: string): Promise<void> {
    let issues = checkDefinition(this.liquid, definition);
    if (!issues.length) issues = await checkReferences((name) => this.repo.findCurrentByName(organizationId, name), definition, savedId);
    if (issues.length) throw new ValidationError('The workflow definition has problems', issues, 'invalid_definition');
  }

  /** The id of the named environment; null clears the setting, undefined leaves it. `path` names the field in the request. */
  private async environmentId(
    organizationId: string,
    name: string | null | undefined,
    path = 'settings.defaultEnvironment',
  ): Promise<string | null | undefined> {
    if (name === undefined || name === null) return name;
    return this.environments.idByName(organizationId, name, path);
  }
}
