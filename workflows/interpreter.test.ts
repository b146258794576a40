import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { runWorkflowDefinition } from './interpreter';
import { awaitReplyUpdate, INTERPRETER_WORKFLOW, type RunEnd, type RunInput, type StepDefinition, type StepRequest } from './run.types';
import { startWorkflowEnv, stepResult, withWorker, type ActivityMocks, type WorkflowEnv } from './workflow-env.fixture';
import { createStepThenReturn } from '../activities/steps/step-then-return';

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(() => w?.env.teardown());

const ORG = 'org-1';
const set = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.set', input: { values: { name: stepId } } });
const ret = (stepId: string, body: unknown): StepDefinition => ({ stepId, stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body } } });
const http = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.http', input: { method: 'GET', url: 'https://example.test/' } });
const ifStep = (stepId: string, then: StepDefinition[], otherwise: StepDefinition[]): StepDefinition => ({
  stepId,
  stepType: 'core.if',
  input: { condition: '{{ initial.go }}', then, else: otherwise },
});

/** What each step activity was asked, in order, and how Temporal ran it. */
interface Call {
  stepId: string;
  local: boolean;
  activityId: string;
  request: StepRequest;
}

/** Mocks of the step activities: a set step outputs its values, a return step its response; `ifResult` is every core.if's verdict. */
function stepMocks(options: { ifResult?: boolean; http?: () => Promise<never>; returnFailures?: Error[] } = {}) {
  const calls: Call[] = [];
  const runEnds: RunEnd[] = [];
  const seen = (request: StepRequest) => {
    const { isLocal, activityId } = Context.current().info;
    calls.push({ stepId: request.step.stepId, local: isLocal, activityId, request });
  };
  const mocks: ActivityMocks = {
    async setStep(request) {
      seen(request);
      return stepResult(request.step.input.values);
    },
    async returnStep(request) {
      seen(request);
      const failure = options.returnFailures?.shift();
      if (failure) throw failure;
      return stepResult({ statusCode: request.step.input.webhookResponse.statusCode, body: request.step.input.webhookResponse.body });
    },
    async ifStep(request) {
      seen(request);
      return stepResult({ result: options.ifResult === true, branch: options.ifResult ? 'then' : 'else' });
    },
    async httpStep(request) {
      seen(request);
      return options.http ? options.http() : stepResult({ status: 200 });
    },
    async recordRunEnd(end) {
      runEnds.push(end);
    },
  };
  // The worker's own composition of the step activities above: a step and the return step after it in one local activity.
  Object.assign(mocks, createStepThenReturn(mocks as Parameters<typeof createStepThenReturn>[0]));
  return { mocks, calls, runEnds };
}

const input = (steps: StepDefinition[]): RunInput => ({
  organizationId: ORG,
  workflow: { id: 'wf-1', name: 'orders', version: 1 },
  initial: { go: true },
  steps,
});

let runs = 0;
const workflowId = () => `execution-${++runs}-${Date.now()}`;

describe('runWorkflowDefinition', () => {
  test.each([
    [true, 'yes'],
    [false, 'no'],
  ])('a core.if holding %s runs only its %s branch, then the steps after it', async (holds, branch) => {
    const { mocks, calls, runEnds } = stepMocks({ ifResult: holds });
    const steps = [ifStep('check', [set('yes')], [set('no')]), ret('done', { branch })];
    const result = await withWorker(w, mocks, ({ taskQueue }) =>
      w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId: workflowId(), args: [input(steps)] }),
    );
    expect(calls.map((c) => c.stepId)).toEqual(['check', branch, 'done']);
    // Before the answer every step is a local activity, with the earlier outputs by value.
    expect(calls.every((c) => c.local)).toBe(true);
    expect(calls[1].request.context.steps.check).toEqual({ result: holds, branch: holds ? 'then' : 'else' });
    expect(calls.map((c) => c.request.seq)).toEqual([0, 1, 2]);
    expect(result).toEqual({ response: { statusCode: 200, body: { branch } }, stepsRun: 3 });
    // The last step's write completed the run: no run-end activity.
    expect(calls[2].request.endsRun).toBe(true);
    expect(runEnds).toEqual([]);
  });

  test('a replay walks its reused steps without running them (a reused core.if goes down the branch it took), outputs by reference', async () => {
    const { mocks, calls, runEnds } = stepMocks({ ifResult: true });
    const steps = [http('fetch'), ifStep('check', [set('yes')], [set('no')]), set('from'), set('after')];
    const replayInput: RunInput = {
      ...input(steps),
      replay: { of: 'original-1', fromStepId: 'from', reused: ['fetch', 'check', 'no'], paths: { check: 'else' } },
    };
    const result = await withWorker(w, mocks, ({ taskQueue }) =>
      w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId: workflowId(), args: [replayInput] }),
    );
    expect(calls.map((c) => c.stepId)).toEqual(['from', 'after']);
    expect(calls[0].request.context).toEqual({
      initial: { go: true },
      steps: {},
      refs: { fetch: { record: 'fetch' }, check: { record: 'check' }, no: { record: 'no' } },
    });
    // Numbered as the original numbered them: the reused steps keep their places.
    expect(calls.map((c) => c.request.seq)).toEqual([3, 4]);
    expect(calls[1].request.endsRun).toBe(true);
    expect(result).toEqual({ stepsRun: 5 });
    expect(runEnds).toEqual([]);
  });

  test('a branch ending the definition holds its last step: that step ends the run', async () => {
    const { mocks, calls, runEnds } = stepMocks({ ifResult: false });
    const result = await withWorker(w, mocks, ({ taskQueue }) =>
      w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, {
        taskQueue,
        workflowId: workflowId(),
        args: [input([set('first'), ifStep('check', [set('yes')], [set('no'), set('last')])])],
      }),
    );
    expect(calls.map((c) => [c.stepId, c.request.endsRun ?? false])).toEqual([
      ['first', false],
      ['check', false],
      ['no', false],
      ['last', true],
    ]);
    expect(result).toEqual({ stepsRun: 4 });
    expect(runEnds).toEqual([]);
  });

  test('an early core.return answers the waiting caller at once; the steps after it run as regular activities and the run completes', async () => {
    const { mocks, calls, runEnds } = stepMocks();
    const steps = [set('prepare'), ret('answer', { ok: true }), set('after'), ret('second', { ignored: true })];
    const id = workflowId();
    const { result, answers, update } = await withWorker(w, mocks, async ({ taskQueue, answers }) => {
      const handle = await w.env.client.workflow.start<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId: id, args: [input(steps)] });
      const update = await handle.executeUpdate(awaitReplyUpdate);
      return { result: await handle.result(), answers, update };
    });
    const answer = { kind: 'response', response: { statusCode: 200, body: { ok: true } } };
    // Through the sink (a caller beside the worker), once, and through the update (any other caller).
    expect(answers).toEqual([answer]);
    expect(update).toEqual(answer);
    expect(result).toEqual({ response: { statusCode: 200, body: { ok: true } }, stepsRun: 4 });
    // The step before the answer and the answer: one local activity.
    expect(calls.map((c) => [c.stepId, c.local, c.activityId])).toEqual([
      ['prepare', true, calls[0].activityId],
      ['answer', true, calls[0].activityId],
      // A local activity would hold the workflow task, and the answer with it: regular activities, named by seq and step.
      ['after', false, '2-after'],
      ['second', false, '3-second'],
    ]);
    expect(calls[1].request.answersCaller).toBe(true);
    expect(calls[3].request.answersCaller).toBeUndefined();
    // A regular activity's input stays in history, so earlier outputs travel as references.
    expect(calls[2].request.context).toEqual({ steps: {}, refs: { prepare: { record: 'prepare' }, answer: { record: 'answer' } } });
    expect(calls[3].request.endsRun).toBe(true);
    expect(runEnds).toEqual([]);
  });

  describe('a step and the return step after it run as one local activity', () => {
    const execute = (mocks: ActivityMocks, steps: StepDefinition[], id = workflowId()) =>
      withWorker(w, mocks, ({ taskQueue }) =>
        w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId: id, args: [input(steps)] }).then(
          (result) => ({ result, failure: undefined }),
          (failure: unknown) => ({ result: undefined, failure }),
        ),
      );

    test('each recorded as itself, in order; the answer reads the output before it; the answer ends the run', async () => {
      const { mocks, calls, runEnds } = stepMocks();
      const { result } = await execute(mocks, [http('fetch'), ret('answer', { ok: true })]);
      expect(calls.map((c) => [c.stepId, c.request.seq, c.local])).toEqual([
        ['fetch', 0, true],
        ['answer', 1, true],
      ]);
      expect(calls[1].activityId).toBe(calls[0].activityId);
      expect(calls[1].request.context.steps).toEqual({ fetch: { status: 200 } });
      expect(calls[1].request).toMatchObject({ answersCaller: true, endsRun: true });
      expect(calls[0].request.endsRun).toBeUndefined();
      expect(result).toEqual({ response: { statusCode: 200, body: { ok: true } }, stepsRun: 2 });
      expect(runEnds).toEqual([]);
    });

    test('a return step failing for good fails the run naming the return step; the step before it ran once', async () => {
      const { mocks, calls, runEnds } = stepMocks({ returnFailures: [ApplicationFailure.nonRetryable('"{{ fetch.body" does not parse', 'TemplateError')] });
      const id = workflowId();
      const { failure } = await execute(mocks, [http('fetch'), ret('answer', { ok: true })], id);
      const message = 'Step "answer" (core.return) failed: "{{ fetch.body" does not parse';
      expect(calls.map((c) => c.stepId)).toEqual(['fetch', 'answer']);
      expect(runEnds).toEqual([{ executionId: id, organizationId: ORG, status: 'failed', error: { stepId: 'answer', code: 'TemplateError', message } }]);
      expect(((failure as WorkflowFailedError).cause as ApplicationFailure).message).toBe(message);
    });

    test('a return step failing in a way worth retrying is retried alone: the step before it is never sent again', async () => {
      const { mocks, calls } = stepMocks({ returnFailures: [new Error('connection reset'), new Error('connection reset')] });
      const { result } = await execute(mocks, [http('fetch'), ret('answer', { ok: true })]);
      expect(calls.map((c) => [c.stepId, c.request.seq])).toEqual([
        ['fetch', 0],
        ['answer', 1],
        ['answer', 1],
        ['answer', 1],
      ]);
      // The retries are an activity of the return step's own, reading the first step's output as the fused one did.
      expect(calls[2].activityId).not.toBe(calls[0].activityId);
      expect(calls[3].request.context.steps).toEqual({ fetch: { status: 200 } });
      expect(result).toEqual({ response: { statusCode: 200, body: { ok: true } }, stepsRun: 2 });
    });

    test('a failing first step fails the run naming it, and the return step never runs', async () => {
      const { mocks, calls } = stepMocks({ http: () => Promise.reject(ApplicationFailure.nonRetryable('the server answered 500', 'HttpStatusError')) });
      const { failure } = await execute(mocks, [http('fetch'), ret('answer', { ok: true })]);
      expect(calls.map((c) => c.stepId)).toEqual(['fetch']);
      expect(((failure as WorkflowFailedError).cause as ApplicationFailure).message).toBe('Step "fetch" (core.http) failed: the server answered 500');
    });
  });

  test("a failing step fails the run naming that step: recorded by recordRunEnd, told to the caller, the workflow's failure", async () => {
    const { mocks, calls, runEnds } = stepMocks({
      http: () => Promise.reject(ApplicationFailure.nonRetryable('the server answered 500', 'HttpStatusError')),
    });
    const id = workflowId();
    const { failure, answers } = await withWorker(w, mocks, async ({ taskQueue, answers }) => {
      const run = w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, {
        taskQueue,
        workflowId: id,
        args: [input([set('prepare'), http('fetch'), set('never')])],
      });
      return {
        failure: await run.then(
          () => undefined,
          (err: unknown) => err,
        ),
        answers,
      };
    });
    const message = 'Step "fetch" (core.http) failed: the server answered 500';
    expect(calls.map((c) => c.stepId)).toEqual(['prepare', 'fetch']);
    expect(runEnds).toEqual([{ executionId: id, organizationId: ORG, status: 'failed', error: { stepId: 'fetch', code: 'HttpStatusError', message } }]);
    expect(answers).toEqual([{ kind: 'failed', stepId: 'fetch', code: 'HttpStatusError', message }]);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('StepFailed');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toBe(message);
  });

  test('a run whose last step cannot end it (a core.if with nothing after) records its end with recordRunEnd', async () => {
    const { mocks, runEnds } = stepMocks({ ifResult: true });
    const id = workflowId();
    await withWorker(w, mocks, ({ taskQueue }) =>
      w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, {
        taskQueue,
        workflowId: id,
        args: [input([ifStep('check', [], [])])],
      }),
    );
    expect(runEnds).toEqual([{ executionId: id, organizationId: ORG, status: 'completed' }]);
  });
});
