/**
 * Every step type the palette offers: what a person reads to choose one (a
 * label, a line saying what it does, an example of its use) and the input a
 * new step starts with. Each starting input is one the API accepts as it
 * stands (test/console-workflow-graph checks every one), so a draft stays
 * valid after an insertion and the form only has to change values.
 */
export interface StepKind {
  type: string;
  label: string;
  summary: string;
  example: string;
  /** The id a new step of this type is named after (made unique in the definition). */
  idBase: string;
  input(): unknown;
}

export const STEP_CATALOG: StepKind[] = [
  {
    type: 'core.http',
    label: 'HTTP request',
    summary: 'Calls a URL and reads its answer as body (parsed JSON) and text.',
    example: 'GET https://api.example.com/orders/{{ initial.orderId }}',
    idBase: 'fetch',
    input: () => ({ url: 'https://api.example.com/items', method: 'GET' }),
  },
  {
    type: 'core.set',
    label: 'Set values',
    summary: 'Names values (templates allowed) that later steps read.',
    example: 'total = {{ initial.price | times: initial.quantity }}',
    idBase: 'values',
    input: () => ({ values: { message: 'Hello {{ initial.name }}' } }),
  },
  {
    type: 'core.if',
    label: 'Branch (if)',
    summary: 'Runs the then steps when a condition holds, else the others.',
    example: 'initial.amount > 100',
    idBase: 'check',
    input: () => ({ condition: 'initial.amount > 100', then: [], else: [] }),
  },
  {
    type: 'core.loop',
    label: 'Loop over items',
    summary: 'Runs its body once per item of an array, some at a time.',
    example: 'items: {{ fetch.body.orders }}, 5 at a time',
    idBase: 'each',
    input: () => ({ items: '{{ initial.items }}', steps: [{ stepId: 'item_value', stepType: 'core.set', input: { values: { value: '{{ item }}' } } }] }),
  },
  {
    type: 'core.wait',
    label: 'Wait',
    summary: 'Pauses the run for a time, until an instant, or for an event or approval.',
    example: 'event approval, timeout after 1 day',
    idBase: 'wait',
    input: () => ({ event: { name: 'approval' }, timeoutSeconds: 86_400 }),
  },
  {
    type: 'core.return',
    label: 'Answer the caller',
    summary: "Ends the path and sets the webhook's status and body.",
    example: '200 { "ok": true }',
    idBase: 'reply',
    input: () => ({ webhookResponse: { statusCode: 200, body: { ok: true } } }),
  },
  {
    type: 'core.workflow',
    label: 'Run a workflow',
    summary: 'Runs another workflow of the organization as a child run.',
    example: 'workflow: send-invoice, input {{ initial }}',
    idBase: 'child',
    input: () => ({ workflow: 'other-workflow' }),
  },
  {
    type: 'ai.llm-call',
    label: 'LLM call',
    summary: 'Asks a model for an answer shaped by the fields you list.',
    example: 'summary: "string: two sentences"',
    idBase: 'ask',
    input: () => ({
      provider: { provider: 'openai', connection: 'openai', model: 'gpt-4o-mini' },
      mode: { mode: 'structured_output', user_prompt: 'Summarize: {{ initial.text }}', output_schema: { summary: 'string: two sentences' } },
    }),
  },
  {
    type: 'ai.agent',
    label: 'AI agent',
    summary: 'A model that calls tools (HTTP, data store, workflows) until it answers.',
    example: 'tools: lookup_order, refund',
    idBase: 'agent',
    input: () => ({ provider: { provider: 'openai', connection: 'openai', model: 'gpt-4o-mini' }, user_prompt: '{{ initial.question }}', tools: [] }),
  },
  {
    type: 'data-store.get',
    label: 'Read a record',
    summary: 'Reads one record of a data store table by key.',
    example: 'customers / {{ initial.email }}',
    idBase: 'record',
    input: () => ({ tableName: 'customers', key: '{{ initial.email }}' }),
  },
  {
    type: 'data-store.set',
    label: 'Write a record',
    summary: 'Writes one record of a data store table, optionally expiring.',
    example: 'customers / {{ initial.email }} = {{ initial }}',
    idBase: 'save',
    input: () => ({ tableName: 'customers', key: '{{ initial.email }}', value: { seen: true } }),
  },
];

/** What a loop body may hold (src/workflows/definition.schemas.ts LOOP_BODY_STEP_TYPES). */
export const LOOP_BODY_TYPES = new Set(['core.http', 'core.if', 'core.set', 'ai.llm-call', 'data-store.get', 'data-store.set']);

const byType = new Map(STEP_CATALOG.map((k) => [k.type, k]));
export const stepKind = (type: string): StepKind | undefined => byType.get(type);
export const stepLabel = (type: string): string => byType.get(type)?.label ?? type;
