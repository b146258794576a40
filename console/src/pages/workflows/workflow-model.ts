/** Workflows and their triggers as the API answers them (src/workflows, src/webhooks, src/schedules). */

export interface WorkflowDefinition {
  name: string;
  description?: string;
  initial?: Record<string, unknown>;
  steps: Array<{ stepId: string; stepType: string; name?: string; input: unknown }>;
}

export interface Workflow {
  id: string;
  suid: string;
  name: string;
  version: number;
  settings: { defaultEnvironmentId: string | null; defaultEnvironment: string | null };
  definition: WorkflowDefinition;
  createdAt: string;
  updatedAt: string;
}

export interface WorkflowVersion {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  createdBy: string;
  createdAt: string;
}

export interface WebhookTrigger {
  id: string;
  workflowId: string;
  name: string;
  method: string;
  authentication: boolean;
  url: string;
  secretSetAt: string | null;
  /** Only in the answer that generated it. */
  secret?: string;
  createdAt: string;
}

export interface ScheduleTrigger {
  id: string;
  workflowId: string;
  name: string;
  schedule: { cron: string; timezone: string } | { intervalSeconds: number };
  paused: boolean;
  overlapPolicy: string;
  nextRunTimes?: string[];
  lastRuns?: Array<{ id: string; status: string; startedAt: string; finishedAt: string | null }>;
  temporalScheduleId: string;
}

export interface ListPage<T> {
  total: number;
  data: T[];
}

export const TRIGGER_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const;

/** A starting point for a new workflow: valid as it stands, and showing the shape of steps. */
export const STARTER_DEFINITION: WorkflowDefinition = {
  name: 'my-workflow',
  description: 'What this workflow does',
  initial: { customer: { email: 'ada@example.com' } },
  steps: [
    { stepId: 'greeting', stepType: 'core.set', input: { values: { message: 'Hello {{ initial.customer.email }}' } } },
    { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { message: '{{ greeting.message }}' } } } },
  ],
};
