import { ConflictError, NotFoundError, type ValidationError } from '../errors/errors';
import type { StepDefinition } from '../workflows/definition.schemas';
import type { ExecutionRow } from './executions.repository';
import { ReplayPlanner, type ReplayPlannerDeps } from './replay-planner';
import type { RecordedStep, ReusedCopy } from './replays.repository';

const ORG = 'org-1';
const set = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.set', input: { values: { x: 1 } } });
const ifStep = (stepId: string, then: StepDefinition[], otherwise: StepDefinition[] = []): StepDefinition => ({
  stepId,
  stepType: 'core.if',
  input: { condition: 'initial.go', then, else: otherwise },
});
const wait = (stepId: string, onTimeout: StepDefinition[]): StepDefinition => ({
  stepId,
  stepType: 'core.wait',
  input: { event: { name: 'go' }, timeoutSeconds: 60, onTimeout },
});

const execution = (fields: Partial<ExecutionRow> = {}): ExecutionRow => ({
  id: 'run-1',
  organizationId: ORG,
  workflowId: 'wf-1',
  workflowName: 'orders',
  workflowVersion: 1,
  triggerId: null,
  triggerName: null,
  environmentId: 'env-1',
  mode: 'api',
  status: 'failed',
  input: { go: true },
  error: null,
  rerunOf: null,
  replayOf: null,
  replayFromStepId: null,
  startedAt: new Date(),
  finishedAt: new Date(),
  ...fields,
});

/** Step records in the order given (seq 0, 1, …), completed unless named in `failed`; core.if outputs as given. */
const recorded = (ids: string[], outputs: Record<string, unknown> = {}, failed: string[] = []): RecordedStep[] =>
  ids.map((stepId, seq) => ({
    stepId,
    stepType: stepId in outputs ? 'core.if' : 'core.set',
    seq,
    status: failed.includes(stepId) ? 'failed' : 'completed',
    output: outputs[stepId],
  }));

/** A planner over one original run and a workflow with versions 1 (`steps`) and 2 (`current`, default the same). */
function planner(options: { run?: ExecutionRow | null; steps: StepDefinition[]; current?: StepDefinition[]; records: RecordedStep[] }) {
  const copies: Array<{ from: string; to: string; copy: ReusedCopy }> = [];
  const versions: Record<number, StepDefinition[]> = { 1: options.steps, 2: options.current ?? options.steps };
  const deps: ReplayPlannerDeps = {
    executions: { findById: async () => (options.run === undefined ? execution() : options.run) },
    replays: {
      recordedSteps: async () => options.records,
      sealedOutputs: async (_org, _id, stepIds) => new Map(stepIds.includes('a') ? [['a', 'sealed-for-run-1']] : []),
      copyReused: async (_org, from, to, copy) => void copies.push({ from, to, copy }),
    },
    seals: {
      open: async (_org, executionId, stepId, envelope) => ({ output: { opened: envelope, executionId, stepId }, secrets: ['s'] }),
      seal: async (_org, executionId, stepId) => `sealed-for-${executionId}-${stepId}`,
    },
    workflows: {
      findCurrent: async () => ({ workflow: { id: 'wf-1', name: 'orders' }, version: { version: 2, definition: { steps: versions[2] } } }) as never,
      findVersion: async (_org, _id, version) => ({ version, definition: { steps: versions[version] } }) as never,
    },
  };
  return { planner: new ReplayPlanner(deps), copies };
}

describe('ReplayPlanner', () => {
  test('reuses the steps the original completed before fromStepId, copies them (re-sealing sealed ones) before the run starts', async () => {
    const { planner: p, copies } = planner({ steps: [set('a'), set('b'), set('c'), set('d')], records: recorded(['a', 'b', 'c'], {}, ['c']) });
    const plan = await p.plan(ORG, 'run-1', { fromStepId: 'c', version: 'original' });
    expect(plan).toMatchObject({ mode: 'replay', initial: { go: true }, environmentId: 'env-1', workflow: { version: 1 } });
    expect(plan.replay).toEqual({ of: 'run-1', fromStepId: 'c', reused: ['a', 'b'], paths: {} });
    await plan.beforeStart!('replay-1');
    expect(copies).toEqual([{ from: 'run-1', to: 'replay-1', copy: { stepIds: ['a', 'b'], replaced: {}, sealed: { a: 'sealed-for-replay-1-a' } } }]);
  });

  test('a reused core.if is walked down the branch its recorded output names', async () => {
    const steps = [ifStep('check', [set('yes')], [set('no')]), set('from')];
    const { planner: p } = planner({ steps, records: recorded(['check', 'yes', 'from'], { check: { result: true } }) });
    const plan = await p.plan(ORG, 'run-1', { fromStepId: 'from', version: 'original' });
    expect(plan.replay).toMatchObject({ reused: ['check', 'yes'], paths: { check: 'then' } });
  });

  test('a replaced core.if output chooses the branch walked: the steps of the branch it took are no longer reused, replaced outputs are not re-sealed', async () => {
    const steps = [set('a'), ifStep('check', [set('yes')], [set('no')]), set('from')];
    const { planner: p, copies } = planner({ steps, records: recorded(['a', 'check', 'yes', 'from'], { check: { result: true } }) });
    const plan = await p.plan(ORG, 'run-1', { fromStepId: 'from', version: 'original', outputs: { a: { x: 2 }, check: { result: false } } });
    expect(plan.replay).toMatchObject({ reused: ['a', 'check'], paths: { check: 'else' } });
    await plan.beforeStart!('replay-2');
    expect(copies[0].copy).toEqual({ stepIds: ['a', 'check'], replaced: { a: { x: 2 }, check: { result: false } }, sealed: {} });
  });

  test("fromStepId inside a taken branch or a wait's onTimeout path: the holder is reused and walked down that path", async () => {
    const steps = [wait('approval', [set('late'), set('from')]), set('after')];
    const { planner: p } = planner({ steps, records: recorded(['approval', 'late', 'from']) });
    const plan = await p.plan(ORG, 'run-1', { fromStepId: 'from', version: 'original' });
    expect(plan.replay).toMatchObject({ reused: ['approval', 'late'], paths: { approval: 'onTimeout' } });
  });

  test('refusals: 404 for no such run, 409 while it runs or waits, 400 naming fromStepId or outputs.<stepId>', async () => {
    const steps = [set('a'), set('b'), set('c')];
    const records = recorded(['a', 'b']);
    await expect(planner({ run: null, steps, records }).planner.plan(ORG, 'x', { fromStepId: 'a', version: 'original' })).rejects.toBeInstanceOf(NotFoundError);
    for (const status of ['running', 'waiting'] as const) {
      const refused = planner({ run: execution({ status }), steps, records }).planner.plan(ORG, 'run-1', { fromStepId: 'a', version: 'original' });
      await expect(refused).rejects.toBeInstanceOf(ConflictError);
    }
    const { planner: p } = planner({ steps, records, current: [set('a'), set('c')] });
    const field = async (request: Parameters<ReplayPlanner['plan']>[2]) =>
      p.plan(ORG, 'run-1', request).then(
        () => 'planned',
        (err: ValidationError) => err.details?.[0].path,
      );
    // Never reached (c), an agent's sub-step, a step the current version lacks, outputs at or after fromStepId.
    expect(await field({ fromStepId: 'c', version: 'original' })).toBe('fromStepId');
    expect(await field({ fromStepId: 'a.model-1', version: 'original' })).toBe('fromStepId');
    expect(await field({ fromStepId: 'b', version: 'current' })).toBe('fromStepId');
    expect(await field({ fromStepId: 'b', version: 'original', outputs: { b: 1 } })).toBe('outputs.b');
    expect(await field({ fromStepId: 'a', version: 'original', outputs: { a: 1 } })).toBe('outputs.a');
    expect(await field({ fromStepId: 'b', version: 'original', outputs: { a: 1 } })).toBe('planned');
  });
});
