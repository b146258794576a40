import { branchParents, formatCost, runUsageText, stepTree, usageText, type ExecutionStep } from './run-model';

const record = (stepId: string, extra: Partial<ExecutionStep> = {}): ExecutionStep =>
  ({
    stepId,
    stepType: 'core.set',
    parentStepId: null,
    itemIndex: null,
    status: 'completed',
    attempt: 1,
    input: {},
    output: {},
    error: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:00.005Z',
    durationMs: 5,
    ...extra,
  }) as ExecutionStep;

const set = (stepId: string) => ({ stepId, stepType: 'core.set', input: { values: { v: 1 } } });

test("the timeline nests a branch's steps under the step that chose them, at any depth, and keeps a loop's records under it", () => {
  const definition = [
    set('first'),
    {
      stepId: 'outer',
      stepType: 'core.if',
      input: { condition: 'true', then: [{ stepId: 'inner', stepType: 'core.if', input: { condition: 'true', then: [set('deep')] } }] },
    },
    { stepId: 'gate', stepType: 'core.wait', input: { event: { name: 'ok' }, timeoutSeconds: 5, onTimeout: [set('late')] } },
  ];
  const branches = branchParents(definition);
  expect([...branches]).toEqual([
    ['inner', { parent: 'outer', branch: 'then' }],
    ['deep', { parent: 'inner', branch: 'then' }],
    ['late', { parent: 'gate', branch: 'timeout' }],
  ]);
  const steps = [
    record('first'),
    record('outer', { stepType: 'core.if' }),
    record('inner', { stepType: 'core.if' }),
    record('deep'),
    record('each[0].x', { parentStepId: 'each', itemIndex: 0 }),
    record('each', { stepType: 'core.loop' }),
    record('late'),
  ];
  const tree = stepTree(steps, branches);
  expect(tree.map((n) => n.step.stepId)).toEqual(['first', 'outer', 'each', 'late']);
  expect(tree[1].inner.map((n) => [n.step.stepId, n.branch])).toEqual([['inner', 'then']]);
  expect(tree[1].inner[0].inner.map((n) => n.step.stepId)).toEqual(['deep']);
  expect(tree[2].children.map((s) => s.stepId)).toEqual(['each[0].x']);
  // The wait itself was not recorded (the run timed out into its path): its step stays where it ran.
  expect(tree[3].branch).toBeUndefined();
  // Without the definition, nothing is nested.
  expect(stepTree(steps).map((n) => n.step.stepId)).toEqual(['first', 'outer', 'inner', 'deep', 'each', 'late']);
});

describe('LLM usage text', () => {
  test('costs to the micro-dollar, trailing zeros dropped past the cents', () => {
    expect(formatCost(0.75)).toBe('$0.75');
    expect(formatCost(0.000036)).toBe('$0.000036');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(12.3)).toBe('$12.30');
  });

  test('a step shows its tokens and cost, or that its model has no price', () => {
    const usage = { provider: 'openai', model: 'gpt-4o-mini', inputTokens: 1200, outputTokens: 30, cost: 0.000198 };
    expect(usageText(usage)).toBe(`${(1200).toLocaleString()} in · 30 out tokens · $0.000198`);
    expect(usageText({ ...usage, model: 'mine', cost: null, outputTokens: null })).toBe(`${(1200).toLocaleString()} in · ? out tokens · no price for mine`);
  });

  test('the run total counts steps without a price', () => {
    expect(runUsageText({ inputTokens: 10, outputTokens: 5, cost: 0.00001, unpricedSteps: 2 })).toBe(
      '10 in · 5 out tokens · $0.00001 (2 steps without a price)',
    );
    expect(runUsageText({ inputTokens: 10, outputTokens: 5, cost: null, unpricedSteps: 1 })).toBe(
      '10 in · 5 out tokens · no cost known (1 step without a price)',
    );
  });
});
