import type { ApiAnswer, ApiSchema } from '../../api/schemas';

/** Workflows and their triggers as the API answers them: aliases of the generated API types (src/workflows, src/webhooks, src/schedules). */

export type WorkflowDefinition = ApiSchema<'WorkflowDefinition'>;
export type Workflow = ApiSchema<'Workflow'>;
export type WorkflowVersion = ApiSchema<'WorkflowVersion'>;
export type WebhookTrigger = ApiSchema<'WebhookTrigger'>;

/** src/webhooks/signatures/scheme-config.ts VERIFICATION_SCHEMES, in the order a person picks them. */
export const VERIFICATION_SCHEMES = ['github', 'stripe', 'slack', 'shopify', 'twilio', 'hmac'] as const satisfies readonly Verification['scheme'][];
export type VerificationScheme = (typeof VERIFICATION_SCHEMES)[number];

/** A trigger's verification as the API answers it (a trigger whose deliveries are not verified has null). */
export type Verification = NonNullable<WebhookTrigger['verification']>;
export type HmacVerification = Extract<Verification, { scheme: 'hmac' }>;

/** Where a delivery's id is read, as written: a header, a body field, or a vendor preset. */
export type DeliveryIdSource = ApiSchema<'DeliveryIdSource'>;

/** Deduplication as read: the source in effect (a preset resolved; null when off) and the preset it follows. */
export type Deduplication = WebhookTrigger['deduplication'];

export type ScheduleTrigger = ApiSchema<'ScheduleTrigger'>;
/** A schedule trigger as POST /workflows/{id}/triggers takes it (`type: "schedule"`), and the fields PATCH /schedule-triggers/{id} takes. */
export type NewScheduleTrigger = ApiSchema<'CreateScheduleTrigger'>;
export type ScheduleTriggerChange = ApiSchema<'UpdateScheduleTrigger'>;
export type OverlapPolicy = ScheduleTrigger['overlapPolicy'];
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow_all'] as const satisfies readonly OverlapPolicy[];

/** An environment as GET /environments lists it (its variables' keys, no values). */
export type Environment = ApiSchema<'Environment'>;
export type EnvironmentList = ApiAnswer<'/environments', 'get'>;
export type ExecutionList = ApiAnswer<'/executions', 'get'>;

export type WorkflowList = ApiAnswer<'/workflows', 'get'>;
export type VersionList = ApiAnswer<'/workflows/{id}/versions', 'get'>;
export type WebhookTriggerList = ApiAnswer<'/webhook-triggers', 'get'>;
export type ScheduleTriggerList = ApiAnswer<'/schedule-triggers', 'get'>;

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
