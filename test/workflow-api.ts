import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Express } from 'express';
import type { z } from 'zod';
import type { Config } from '../src/config/config';
import type { ExecutionListItemSchema, ExecutionSchema } from '../src/executions/executions.schemas';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { as, startHarness, type Harness } from './harness';
import type { HttpStub } from './stubs/http-stub';

/**
 * Helpers for tests that build workflows and triggers through the HTTP API
 * and read back what the runs did. Each call that creates something fails the
 * test unless the API answers with its success status.
 */

export interface Step {
  stepId: string;
  stepType: string;
  input: Record<string, unknown>;
}

export const httpStep = (stepId: string, input: Record<string, unknown>): Step => ({ stepId, stepType: 'core.http', input });

export const returnStep = (stepId: string, body: unknown, statusCode = 200, headers?: Record<string, string>): Step => ({
  stepId,
  stepType: 'core.return',
  input: { webhookResponse: { statusCode, body, ...(headers ? { headers } : {}) } },
});

/**
 * A loop body that runs `then` for every item but is budgeted as a long one: a
 * loop counts every branch of an item toward its history budget, taken or not
 * (workflows/loops.ts), and the untaken 20-step branch adds 40 events an item.
 * So a test reaches child batches with a few hundred steps, not thousands.
 */
export const budgetPaddedBody = (then: Step[]): Step[] => [
  {
    stepId: 'always',
    stepType: 'core.if',
    input: {
      condition: 'index >= 0',
      then,
      else: Array.from({ length: 20 }, (_, i) => ({ stepId: `pad${i}`, stepType: 'core.set', input: { values: { never: true } } })),
    },
  },
];

type ExecutionBody = z.output<typeof ExecutionSchema>;

/**
 * A step record as GET /executions/:id answers it. Its input and output are any
 * JSON (`unknown` in the schema); tests read into them, so they are `any` here.
 */
export type ExecutionStep = Omit<NonNullable<ExecutionBody['steps']>[number], 'input' | 'output'> & { input: any; output: any };

/** GET /executions/:id (and the answers of runs that wait): always with its steps. */
export type Execution = Omit<ExecutionBody, 'steps'> & { steps: ExecutionStep[] };

/** A list entry of GET /executions: no steps, and a summary of the input instead of the input. */
export type ExecutionSummary = z.output<typeof ExecutionListItemSchema>;

/** The step record `stepId` of an execution; throws naming the steps there are if it has none. */
export function stepOf(execution: Pick<Execution, 'steps'>, stepId: string): ExecutionStep {
  const step = execution.steps.find((s) => s.stepId === stepId);
  if (!step) throw new Error(`no step record "${stepId}" in ${JSON.stringify(execution.steps.map((s) => s.stepId))}`);
  return step;
}

export interface WorkflowOptions {
  /** Default: a unique name. */
  name?: string;
  /** Sets `settings.defaultEnvironment`. */
  environment?: string;
  /** Anything else goes into the definition as is (initial, description, settings...). */
  [field: string]: unknown;
}

export interface Trigger {
  id: string;
  name: string;
  url: string;
  /** Shown once, when authentication is on. */
  secret?: string;
  /** `/w/@<org suid>/<name>`, for supertest. */
  path: string;
}

/** The API helpers for one app, acting as the organization's owner unless a token is given. */
export function workflowApi(app: Express, org: TestOrg) {
  const owner = () => as(app, org.ownerToken);

  async function createWorkflow(steps: unknown[], { name = uniqueName('wf'), environment, ...extra }: WorkflowOptions = {}) {
    const res = await owner()
      .post('/workflows')
      .send({ name, steps, ...extra, ...(environment ? { settings: { defaultEnvironment: environment } } : {}) });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, name };
  }

  async function createTrigger(
    workflowId: string,
    body: { name?: string; method?: string; authentication?: boolean; [field: string]: unknown } = {},
  ): Promise<Trigger> {
    const res = await owner()
      .post(`/workflows/${workflowId}/triggers`)
      .send({ name: uniqueName('hook'), method: 'POST', ...body });
    expect(res.status).toBe(201);
    return { ...res.body, path: `/w/@${org.organizationSuid}/${res.body.name}` };
  }

  async function readExecution(id: string, token = org.ownerToken): Promise<Execution> {
    const res = await as(app, token).get(`/executions/${id}`);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function listExecutions(query: Record<string, string>, token = org.ownerToken) {
    const res = await as(app, token).get(`/executions?${new URLSearchParams(query)}`);
    expect(res.status).toBe(200);
    return res.body as { total: number; data: ExecutionSummary[] };
  }

  return {
    createWorkflow,
    createTrigger,

    /** A workflow with one trigger (POST, unless told otherwise). */
    async createHook(steps: unknown[], { authentication, method, ...options }: WorkflowOptions & { authentication?: boolean; method?: string } = {}) {
      const workflow = await createWorkflow(steps, options);
      const trigger = await createTrigger(workflow.id, { authentication, ...(method ? { method } : {}) });
      return { workflow, trigger, path: trigger.path };
    },

    /** Creates an environment with these variables; returns its name. */
    async createEnvironment(variables: Record<string, string | { value: string; secret?: boolean }>, name = uniqueName('env')) {
      const res = await owner().post('/environments').send({ name, variables });
      expect(res.status).toBe(201);
      return name;
    },

    /** POST /workflows/:id/runs {wait: true}: the ended execution with its steps. */
    async runAndWait(workflowId: string, input: Record<string, unknown> = {}): Promise<Execution> {
      const res = await owner().post(`/workflows/${workflowId}/runs`).send({ input, wait: true });
      expect(res.status).toBe(200);
      return res.body;
    },

    /** POST /workflows/:id/test, waited for: the execution with its steps. */
    async testRun(workflowId: string, initial?: Record<string, unknown>): Promise<Execution> {
      const res = await owner()
        .post(`/workflows/${workflowId}/test`)
        .send(initial ? { initial } : {});
      expect(res.status).toBe(200);
      return res.body;
    },

    readExecution,
    listExecutions,

    async executionCount(workflowId: string): Promise<number> {
      return (await listExecutions({ workflowId })).total;
    },

    /** Polls GET /executions/:id until its status leaves `running`; throws past the deadline. */
    awaitEnd(id: string, timeoutMs = 30_000): Promise<Execution> {
      return eventually(
        () => readExecution(id),
        (execution) => execution.status !== 'running',
        timeoutMs,
      );
    },
  };
}

export type WorkflowApi = ReturnType<typeof workflowApi>;

const { EventType } = temporal.api.enums.v1;
const TASK_IN_FLIGHT = new Set([EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED]);

/**
 * The Temporal history of an execution as searchable text: the JSON of the
 * events plus every payload's bytes decoded (payload data is binary, or
 * base64 in JSON form). Read once no workflow task is in flight: a run's
 * record can end inside a workflow task (its local activities) before
 * Temporal has written what the task did.
 */
export async function historyText(client: Client, executionId: string): Promise<string> {
  const handle = client.workflow.getHandle(executionId);
  const history = await eventually(
    () => handle.fetchHistory(),
    (h) => !TASK_IN_FLIGHT.has(h.events?.at(-1)?.eventType ?? EventType.EVENT_TYPE_UNSPECIFIED),
  );
  const parts = [JSON.stringify(history)];
  const walk = (value: unknown, key?: string): void => {
    if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
    else if (typeof value === 'string' && key === 'data') parts.push(Buffer.from(value, 'base64').toString('utf8'));
    else if (Array.isArray(value)) value.forEach((v) => walk(v));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(history);
  return parts.join('\n');
}

/**
 * A harness, a fresh organization with its API helpers, and a worker whose HTTP
 * steps may reach `stub` (step settings in `worker` added or overriding).
 */
export async function startWorkflowHarness(
  stub: HttpStub,
  options: { configure?: (config: Config) => void; worker?: Partial<Config['steps']> } = {},
): Promise<{ h: Harness; org: TestOrg; a: WorkflowApi }> {
  const h = await startHarness({ configure: options.configure });
  const org = await createTestOrg(h.services);
  await h.startWorker({ httpAllowList: [stub.host], ...options.worker });
  return { h, org, a: workflowApi(h.app, org) };
}
