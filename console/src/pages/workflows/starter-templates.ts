import type { WorkflowDefinition } from './workflow-model';

/**
 * The starters a new organization is offered on its empty workflows list. Each definition is one the API
 * accepts as it stands (test/console-workflow-settings.integration.test.ts creates every one), so a person
 * starts from something that saves, then edits URLs and names. Addresses are example.com placeholders: the
 * service's outbound guard lets a run call only real public hosts.
 */
export interface StarterTemplate {
  /** In the URL: /workflows/new?template=<id>. */
  id: string;
  title: string;
  summary: string;
  /** What it needs besides the definition (a trigger to add, a connection that must exist). */
  needs: string;
  definition: WorkflowDefinition;
}

const webhookHttpAnswer: StarterTemplate = {
  id: 'webhook-http-answer',
  title: 'Webhook → HTTP → answer',
  summary: 'A caller posts an order id; the workflow looks the order up in another API and answers the caller with its status.',
  needs: 'Add a webhook trigger on its Triggers tab to get a URL to call.',
  definition: {
    name: 'order-status',
    description: 'Looks an order up and answers the webhook caller with its status',
    initial: { orderId: '1001' },
    steps: [
      {
        stepId: 'lookup',
        stepType: 'core.http',
        input: { url: 'https://api.example.com/orders/{{ initial.orderId }}', method: 'GET', retry: { limit: 2 } },
      },
      {
        stepId: 'reply',
        stepType: 'core.return',
        input: { webhookResponse: { statusCode: 200, body: { orderId: '{{ initial.orderId }}', status: '{{ lookup.body.status }}' } } },
      },
    ],
  },
};

const scheduleHttpStore: StarterTemplate = {
  id: 'schedule-http-store',
  title: 'Schedule → HTTP → data store',
  summary: 'On a schedule, fetches exchange rates from an API and keeps the latest answer in the data store table "rates".',
  needs: 'Add a schedule trigger (an interval or cron) on its Triggers tab; the table is created by its first write.',
  definition: {
    name: 'rates-sync',
    description: 'Fetches rates on a schedule and stores the latest in the data store',
    initial: { base: 'EUR' },
    steps: [
      {
        stepId: 'fetch',
        stepType: 'core.http',
        input: { url: 'https://api.example.com/rates', method: 'GET', searchParams: { base: '{{ initial.base }}' }, retry: { limit: 3 } },
      },
      {
        stepId: 'store',
        stepType: 'data-store.set',
        input: { tableName: 'rates', key: 'latest-{{ initial.base }}', value: { base: '{{ initial.base }}', rates: '{{ fetch.body.rates }}' } },
      },
    ],
  },
};

const approvalByLink: StarterTemplate = {
  id: 'approval-resume-link',
  title: 'Approval by resume link',
  summary:
    'Posts a request with a one-time resume link to a chat hook, waits up to 3 days for someone to POST {"approved": true|false} to it, then branches on the answer.',
  needs: 'Point the notify step at your chat or mail hook; the person approving needs no account, only the link.',
  definition: {
    name: 'purchase-approval',
    description: 'Asks for an approval through a resume link and branches on the decision',
    initial: { item: 'Laptop', amount: 1200, requester: 'ada@example.com' },
    steps: [
      {
        stepId: 'notify',
        stepType: 'core.http',
        input: {
          url: 'https://hooks.example.com/approvals',
          method: 'POST',
          body: {
            text: '{{ initial.requester }} asks for {{ initial.item }} ({{ initial.amount }}). POST {"approved": true} or {"approved": false} to the link.',
            resumeLink: '{{ $resume.approval }}',
          },
        },
      },
      {
        stepId: 'approval',
        stepType: 'core.wait',
        input: {
          event: {
            name: 'decision',
            schema: { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' }, by: { type: 'string' } } },
          },
          timeoutSeconds: 259200,
        },
      },
      {
        stepId: 'decide',
        stepType: 'core.if',
        input: {
          condition: 'approval.approved == true',
          then: [{ stepId: 'approved', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { decision: 'approved' } } } }],
          else: [{ stepId: 'rejected', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { decision: 'rejected' } } } }],
        },
      },
    ],
  },
};

const agentWithTools: StarterTemplate = {
  id: 'ai-agent-tools',
  title: 'AI agent with tools',
  summary: 'An OpenAI model answers a question, calling an order API and a data store table as tools, and the answer goes back to the caller.',
  needs: 'The connection "openai" must exist (Settings → Connections: an api-key connection holding your OpenAI key).',
  definition: {
    name: 'support-agent',
    description: 'An agent that looks orders up and keeps notes, answering the caller',
    initial: { question: 'Where is order 1001?' },
    steps: [
      {
        stepId: 'agent',
        stepType: 'ai.agent',
        input: {
          provider: { provider: 'openai', connection: 'openai', model: 'gpt-4o-mini' },
          system_prompt: 'You answer customers about their orders. Look orders up before answering; note what you promised.',
          user_prompt: '{{ initial.question }}',
          tools: [
            {
              type: 'http',
              name: 'get_order',
              description: 'Reads one order by its id: status, items and delivery date',
              parameters: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
              request: { url: 'https://api.example.com/orders/{{ args.orderId }}', method: 'GET' },
            },
            { type: 'data-store', name: 'save_note', description: 'Keeps a note about a customer under a key', operation: 'set', tableName: 'agent_notes' },
          ],
          maxIterations: 6,
        },
      },
      { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { answer: '{{ agent.text }}' } } } },
    ],
  },
};

export const STARTER_TEMPLATES: readonly StarterTemplate[] = [webhookHttpAnswer, scheduleHttpStore, approvalByLink, agentWithTools];

export const starterTemplate = (id: string | null) => STARTER_TEMPLATES.find((t) => t.id === id);
