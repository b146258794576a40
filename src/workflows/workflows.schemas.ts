import { z } from '../openapi/zod';
import { WorkflowDefinition } from './definition.schemas';

export const WorkflowSettings = z
  .strictObject({
    defaultEnvironment: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'Name of the environment runs use unless a call names another; null clears it' }),
  })
  .openapi('WorkflowSettings');
export type WorkflowSettingsInput = z.output<typeof WorkflowSettings>;

/** The definition of interface.md 2.1 as is, with optional `settings` beside it. */
export const SaveWorkflowBody = WorkflowDefinition.extend({ settings: WorkflowSettings.optional() }).openapi('SaveWorkflow');

export const WorkflowIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
export const VersionParams = z.object({ id: z.uuid({ message: 'must be a UUID' }), version: z.coerce.number().int().min(1) });

export const WorkflowSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    name: z.string(),
    version: z.number().int(),
    settings: z.object({ defaultEnvironmentId: z.uuid().nullable(), defaultEnvironment: z.string().nullable() }),
    definition: WorkflowDefinition,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Workflow');

export const WorkflowVersionSchema = z
  .object({ workflowId: z.uuid(), version: z.number().int(), definition: WorkflowDefinition, createdBy: z.uuid(), createdAt: z.string() })
  .openapi('WorkflowVersion');
