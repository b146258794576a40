import { ApplicationFailure } from '@temporalio/client';
import type { runWorkflowDefinition } from './interpreter';
import type { ChildRunStart, ErrorRunPrepareRequest, WorkflowStepFinishRequest, WorkflowStepPrepareRequest } from './child-run.types';
import { INTERPRETER_WORKFLOW, type RunInput, type StepDefinition, type StepRequest } from './run.types';
import { startWorkflowEnv, stepResult, withWorker, type ActivityMocks, type WorkflowEnv } from './workflow-env.fixture';

/**
 * The interpreter's runs started by runs, on the time-skipping test server
 * with mocked activities: a core.workflow step's child (awaited, failed,
 * fire and forget) and a failed run's error workflow (never from an error run).
 */

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(() => w?.env.teardown());

const ORG = 'org-1';
const set = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.set', input: { values: { name: stepId } } });
const http = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.http', input: { method: 'GET', url: 'https://example.test/' } });
const call = (stepId: string, wait = true): StepDefinition => ({ stepId, stepType: 'core.workflow', input: { workflow: 'child', wait } });
const input = (steps: StepDefinition[], extra: Partial<RunInput> = {}): RunInput => ({
  organizationId: ORG,
  workflow: { id: 'wf-1', name: 'orders', version: 1 },
  initial: {},
  steps,
  ...extra,
});
let runs = 0;
const executionId = () => `execution-${++runs}-${Date.now()}`;

/** Step mocks (set succeeds, http fails) that record which run ran which step, and the child-run activities' requests. */
function mocks(childSteps: StepDefinition[], options: { errorRun?: boolean } = {}) {
  const ran: string[] = [];
  const prepared: WorkflowStepPrepareRequest[] = [];
  const finished: WorkflowStepFinishRequest[] = [];
  const errorReports: ErrorRunPrepareRequest[] = [];
  const childStart = (id: string, extra: Partial<RunInput> = {}): ChildRunStart => ({
    executionId: id,
    input: { organizationId: ORG, workflow: { id: 'wf-2', name: 'child', version: 1 }, steps: childSteps, ...extra },
  });
  const activities: ActivityMocks = {
    async setStep(request: StepRequest) {
      ran.push(`${request.run.executionId}:${request.step.stepId}`);
      return stepResult({ ok: true });
    },
    async httpStep(request: StepRequest) {
      ran.push(`${request.run.executionId}:${request.step.stepId}`);
      throw ApplicationFailure.nonRetryable('the server answered 500', 'HttpStatusError');
    },
    async recordRunEnd() {},
    async workflowStepPrepare(request) {
      prepared.push(request);
      return { ...childStart(`${request.run.executionId}-child`, { agentDepth: request.depth + 1 }), startedAt: new Date().toISOString() };
    },
    async workflowStepFinish(request) {
      finished.push(request);
      return stepResult({ executionId: request.child.executionId });
    },
    async errorRunPrepare(request) {
      errorReports.push(request);
      return options.errorRun === false ? null : childStart(`${request.executionId}-error`, { errorRun: true });
    },
  };
  return { activities, ran, prepared, finished, errorReports };
}

const run = (runInput: RunInput, id: string, activities: ActivityMocks, then?: () => Promise<unknown>) =>
  withWorker(w, activities, async ({ taskQueue }) => {
    const outcome = await w.env.client.workflow
      .execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId: id, args: [runInput] })
      .then(
        () => 'completed',
        () => 'failed',
      );
    await then?.();
    return outcome;
  });

describe('core.workflow', () => {
  test('an awaited child runs as a child workflow one level deeper; the finish activity hears it completed', async () => {
    const m = mocks([set('inner')]);
    const id = executionId();
    expect(await run(input([call('sub'), set('after')], { agentDepth: 1 }), id, m.activities)).toBe('completed');
    expect(m.prepared).toEqual([expect.objectContaining({ depth: 1, errorRun: false, context: { steps: {}, refs: {} } })]);
    expect(m.ran).toEqual([`${id}-child:inner`, `${id}:after`]);
    expect(m.finished).toEqual([expect.objectContaining({ child: { executionId: `${id}-child`, workflow: 'child' }, outcome: { status: 'completed' } })]);
    const child = await w.env.client.workflow.getHandle(`${id}-child`).describe();
    expect(child.parentExecution?.workflowId).toBe(id);
  });

  test("a failed child reaches the finish activity as the child's error", async () => {
    const m = mocks([http('boom')]);
    const id = executionId();
    await run(input([call('sub')]), id, m.activities);
    expect(m.finished[0].outcome).toEqual({ status: 'failed', message: expect.stringContaining('Step "boom" (core.http) failed') });
  });

  test('fire and forget: the parent ends without waiting, and the child runs on after it', async () => {
    const m = mocks([set('inner')]);
    const id = executionId();
    const outcome = await run(input([call('sub', false)]), id, m.activities, () => w.env.client.workflow.getHandle(`${id}-child`).result());
    expect(outcome).toBe('completed');
    expect(m.finished).toEqual([expect.not.objectContaining({ outcome: expect.anything() })]);
    expect(m.ran).toEqual([`${id}-child:inner`]);
  });
});

describe('error workflows', () => {
  test('a failed run prepares and starts its error run, which outlives it', async () => {
    const m = mocks([set('report')]);
    const id = executionId();
    const outcome = await run(input([http('fetch')]), id, m.activities, () => w.env.client.workflow.getHandle(`${id}-error`).result());
    expect(outcome).toBe('failed');
    expect(m.errorReports).toEqual([
      {
        executionId: id,
        organizationId: ORG,
        status: 'failed',
        error: { stepId: 'fetch', code: 'HttpStatusError', message: 'Step "fetch" (core.http) failed: the server answered 500' },
      },
    ]);
    expect(m.ran).toEqual([`${id}:fetch`, `${id}-error:report`]);
  });

  test('a run whose definition names no error workflow starts nothing; a completed run asks nothing', async () => {
    const m = mocks([set('report')], { errorRun: false });
    await run(input([http('fetch')]), executionId(), m.activities);
    expect(m.errorReports).toHaveLength(1);
    expect(m.ran).toHaveLength(1);
    await run(input([set('fine')]), executionId(), m.activities);
    expect(m.errorReports).toHaveLength(1);
  });

  test('an error run (or a run it started) that fails prepares no error run', async () => {
    const m = mocks([set('report')]);
    expect(await run(input([http('fetch')], { errorRun: true }), executionId(), m.activities)).toBe('failed');
    expect(m.errorReports).toEqual([]);
  });
});
