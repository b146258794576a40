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
  /** The signature every delivery must carry; never its secret. */
  verification: Verification | null;
  signingSecretSetAt: string | null;
  /** Until when the rotated-out signing secret still verifies; null when only the current one does. */
  signingOverlapUntil: string | null;
  /** Only in the answer that generated it (hmac without a given secret). */
  signingSecret?: string;
  deduplication: Deduplication;
  createdAt: string;
}

/** src/webhooks/signatures/scheme-config.ts VERIFICATION_SCHEMES. */
export const VERIFICATION_SCHEMES = ['github', 'stripe', 'slack', 'shopify', 'twilio', 'hmac'] as const;
export type VerificationScheme = (typeof VERIFICATION_SCHEMES)[number];

export interface HmacVerification {
  scheme: 'hmac';
  header: string;
  algorithm: 'sha256' | 'sha512';
  encoding: 'hex' | 'base64';
  prefix?: string;
  timestampHeader?: string;
  payload: string;
  toleranceSeconds: number;
}

/** A trigger's verification as the API answers it (WebhookVerification, defaults applied). */
export type Verification = { scheme: 'stripe' | 'slack'; toleranceSeconds: number } | { scheme: 'github' | 'shopify' | 'twilio' } | HmacVerification;

/** Where a delivery's id is read, as written (DeliveryIdSource): a header, a body field, or a vendor preset. */
export type DeliveryIdSource = { header: string } | { bodyField: string } | { preset: string };

/** Deduplication as read: the source in effect (a preset resolved; null when off) and the preset it follows. */
export interface Deduplication {
  enabled: boolean;
  deliveryId: { header: string } | { bodyField: string } | null;
  preset: string | null;
  windowSeconds: number;
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
