import type { WorkflowDefinitionInput } from './definition.schemas';
import { type WorkflowVersion } from './workflow-version.entity';
import { type CurrentWorkflow } from './workflows.repository';

/** A workflow as the API shows it: its current definition and settings. */
export function presentWorkflow({ workflow, version, defaultEnvironmentName }: CurrentWorkflow) {
  return {
    id: workflow.id,
    suid: workflow.suid,
    organizationId: workflow.organizationId,
    name: workflow.name,
    version: workflow.currentVersion,
    settings: { defaultEnvironmentId: workflow.defaultEnvironmentId, defaultEnvironment: defaultEnvironmentName },
    definition: version.definition as WorkflowDefinitionInput,
    createdAt: workflow.createdAt.toISOString(),
    updatedAt: workflow.updatedAt.toISOString(),
  };
}

export const presentVersion = (v: WorkflowVersion) => ({
  workflowId: v.workflowId,
  version: v.version,
  definition: v.definition as WorkflowDefinitionInput,
  createdBy: v.createdBy,
  createdAt: v.createdAt.toISOString(),
});
