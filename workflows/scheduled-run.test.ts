import { SEARCH_ATTRIBUTE_KEYS } from '../src/temporal/search-attributes';
import type { RunEnd, RunInput, StepRequest } from './run.types';
import type { runScheduledTrigger } from './scheduled-run';
import { SCHEDULED_RUN_WORKFLOW, type BeginScheduledRunResult, type ScheduledRunInput } from './scheduled-run.types';
import { startWorkflowEnv, stepResult, withWorker, type WorkflowEnv } from './workflow-env.fixture';

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(() => w?.env.teardown());

let runs = 0;
const trigger: ScheduledRunInput = { organizationId: 'org-1', triggerId: 'trigger-1' };

/** The schedule's activities mocked: `begun` is what reading the trigger finds. */
function scheduleMocks(begun: BeginScheduledRunResult) {
  const begins: Array<ScheduledRunInput & { executionId: string }> = [];
  const deleted: string[] = [];
  const steps: StepRequest[] = [];
  const runEnds: RunEnd[] = [];
  const mocks = {
    async beginScheduledRun(input: ScheduledRunInput & { executionId: string }) {
      begins.push(input);
      return begun;
    },
    async deleteTriggerSchedule(input: { triggerId: string }) {
      deleted.push(input.triggerId);
    },
    async returnStep(request: StepRequest) {
      steps.push(request);
      return stepResult(request.step.input.webhookResponse);
    },
    async recordRunEnd(end: RunEnd) {
      runEnds.push(end);
    },
  };
  return { mocks, begins, deleted, steps, runEnds };
}

/** Starts the workflow as the trigger's Schedule does: under the workflow's name as it was when the schedule was made. */
async function beat(mocks: ReturnType<typeof scheduleMocks>['mocks']) {
  const workflowId = `schedule-run:trigger-1-${++runs}-${Date.now()}`;
  return withWorker(w, mocks, async ({ taskQueue }) => {
    const handle = await w.env.client.workflow.start<typeof runScheduledTrigger>(SCHEDULED_RUN_WORKFLOW, {
      taskQueue,
      workflowId,
      args: [trigger],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.WorkflowName, value: 'orders' }],
    });
    const result = await handle.result();
    const workflowName = (await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.WorkflowName);
    return { workflowId, result, workflowName };
  });
}

describe('runScheduledTrigger', () => {
  test("a beat begins the run under its own id and interprets the workflow's current version, carrying its current name", async () => {
    const input: RunInput = {
      organizationId: 'org-1',
      workflow: { id: 'wf-1', name: 'orders (renamed)', version: 3 },
      trigger: { id: 'trigger-1', name: 'nightly' },
      initial: { day: 'monday' },
      steps: [{ stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { ok: true } } } }],
    };
    const m = scheduleMocks({ kind: 'run', input });
    const { workflowId, result, workflowName } = await beat(m.mocks);

    expect(m.begins).toEqual([{ ...trigger, executionId: workflowId }]);
    expect(m.steps).toEqual([
      expect.objectContaining({
        run: { executionId: workflowId, organizationId: 'org-1', workflowId: 'wf-1' },
        context: { initial: { day: 'monday' }, steps: {}, refs: {} },
      }),
    ]);
    expect(result).toEqual({ response: { statusCode: 200, body: { ok: true } }, stepsRun: 1 });
    expect(workflowName).toBe('orders (renamed)');
    expect(m.deleted).toEqual([]);
  });

  test('a beat that finds its trigger gone deletes the schedule and runs nothing', async () => {
    const m = scheduleMocks({ kind: 'gone' });
    const { workflowId, result, workflowName } = await beat(m.mocks);

    expect(m.begins).toEqual([{ ...trigger, executionId: workflowId }]);
    expect(m.deleted).toEqual(['trigger-1']);
    expect(result).toEqual({ skipped: 'trigger_gone' });
    expect(m.steps).toEqual([]);
    expect(m.runEnds).toEqual([]);
    expect(workflowName).toBe('orders');
  });
});
