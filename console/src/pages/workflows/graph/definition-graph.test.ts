import { definitionGraph, GRAPH_END, loopBodyEntry, loopBodyExit, type GraphEdge } from './definition-graph';
import { duplicateStep, insertStep, moveStep, removeStep, renameStep, valueAt } from './definition-edit';
import { layoutGraph } from './graph-layout';
import { loopItems, runMarks, runOverlay, type RecordedStep } from './run-overlay';

const set = (stepId: string, values: Record<string, unknown> = { v: 1 }) => ({ stepId, stepType: 'core.set', input: { values } });

const definition = {
  name: 'orders',
  initial: {},
  steps: [
    set('first'),
    {
      stepId: 'big',
      stepType: 'core.if',
      input: { condition: 'first.v > 0', then: [set('yes'), { stepId: 'done', stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }] },
    },
    { stepId: 'each', stepType: 'core.loop', input: { items: '{{ initial.items }}', steps: [set('inner', { x: '{{ item }}' })] } },
    { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'ok' }, timeoutSeconds: 60, onTimeout: [set('late')] } },
    set('last', { from: '{{ first.v }} {{ yes.v }}' }),
  ],
};

const edgesFrom = (edges: GraphEdge[], source: string) => edges.filter((e) => e.source === source);

describe('definitionGraph', () => {
  const graph = definitionGraph(definition.steps, [{ id: 'trigger:hook', label: 'Webhook hook', detail: 'POST' }]);

  test('the trigger enters the first step, and steps follow in order', () => {
    expect(edgesFrom(graph.edges, 'trigger:hook').map((e) => e.target)).toEqual(['first']);
    expect(edgesFrom(graph.edges, 'first').map((e) => e.target)).toEqual(['big']);
  });

  test("a core.if's branches leave it side by side, a return ends its path, and an empty branch goes straight to the join", () => {
    const out = edgesFrom(graph.edges, 'big');
    expect(out.map((e) => [e.label, e.target])).toEqual([
      ['then', 'yes'],
      ['else', 'big::else'],
    ]);
    expect(edgesFrom(graph.edges, 'done')).toEqual([]);
    // Only the else path reaches the join, through its own point; the step after the if follows the join.
    expect(graph.edges.filter((e) => e.target === 'join-1').map((e) => e.source)).toEqual(['big::else']);
    expect(edgesFrom(graph.edges, 'join-1').map((e) => e.target)).toEqual(['each']);
    // A step inserted on the empty else opens the branch.
    expect(out[1].insert).toEqual({ list: ['steps', 1, 'input', 'else'], index: 0, scope: 'branch' });
    expect(edgesFrom(graph.edges, 'big::else')[0].insert).toBeUndefined();
  });

  test("a loop's body is drawn inside the loop, between its own start and end", () => {
    const inner = graph.nodes.find((n) => n.id === 'inner')!;
    expect(inner.container).toBe('each');
    expect(edgesFrom(graph.edges, loopBodyEntry('each')).map((e) => e.target)).toEqual(['inner']);
    expect(edgesFrom(graph.edges, 'inner')).toMatchObject([
      { target: loopBodyExit('each'), insert: { list: ['steps', 2, 'input', 'steps'], index: 1, scope: 'loop-body' } },
    ]);
    expect(edgesFrom(graph.edges, 'each').map((e) => e.target)).toEqual(['approval']);
  });

  test("a wait's timeout path runs beside the event path and both go on after it", () => {
    expect(
      edgesFrom(graph.edges, 'approval')
        .map((e) => [e.label, e.target])
        .sort(),
    ).toEqual([
      ['event', 'approval::event'],
      ['timeout', 'late'],
    ]);
    expect(edgesFrom(graph.edges, 'join-2').map((e) => e.target)).toEqual(['last']);
    expect(edgesFrom(graph.edges, 'last')).toMatchObject([{ target: GRAPH_END, insert: { list: ['steps'], index: 5 } }]);
  });

  test('a workflow without trigger is entered from the API', () => {
    const bare = definitionGraph([set('only')], []);
    expect(bare.nodes[0]).toMatchObject({ kind: 'trigger', label: 'API or test run' });
  });

  test("layout puts a loop's body inside the loop's box, and each step below the one before", () => {
    const boxes = layoutGraph(graph);
    const first = boxes.get('first')!;
    const big = boxes.get('big')!;
    expect(big.y).toBeGreaterThan(first.y + first.height);
    const loop = boxes.get('each')!;
    const inner = boxes.get('inner')!;
    // Body positions are relative to the loop's box and fit in it.
    expect(inner.x).toBeGreaterThanOrEqual(0);
    expect(inner.x + inner.width).toBeLessThanOrEqual(loop.width);
    expect(inner.y + inner.height).toBeLessThanOrEqual(loop.height);
    const yes = boxes.get('yes')!;
    const late = boxes.get('late')!;
    expect(yes.y).toBeGreaterThan(big.y);
    expect(late.y).toBeGreaterThan(boxes.get('approval')!.y);
  });

  test('a 200-step definition with branches and loops lays out', () => {
    const steps = Array.from({ length: 50 }, (_, i) => [
      set(`a${i}`),
      { stepId: `b${i}`, stepType: 'core.if', input: { condition: 'true', then: [set(`c${i}`)], else: [set(`d${i}`)] } },
      { stepId: `e${i}`, stepType: 'core.loop', input: { items: '[]', steps: [set(`f${i}`)] } },
    ]).flat();
    const big = definitionGraph(steps, []);
    const boxes = layoutGraph(big);
    expect(boxes.size).toBe(big.nodes.length);
    expect([...boxes.values()].every((b) => Number.isFinite(b.x) && Number.isFinite(b.y))).toBe(true);
  });
});

describe('definition edits', () => {
  test('insert, move and remove keep every other key as written', () => {
    const added = insertStep(definition, { list: ['steps', 1, 'input', 'else'], index: 0, scope: 'branch' }, set('no'));
    expect(valueAt(added, ['steps', 1, 'input', 'else', 0])).toEqual(set('no'));
    expect(Object.keys(valueAt(added, ['steps', 1, 'input']) as object)).toEqual(['condition', 'then', 'else']);
    expect(definition.steps[1].input).not.toHaveProperty('else');

    const moved = moveStep(added, ['steps', 0], 1);
    expect((moved.definition.steps as Array<{ stepId: string }>).map((s) => s.stepId).slice(0, 2)).toEqual(['big', 'first']);
    expect(moved.path).toEqual(['steps', 1]);
    expect(moveStep(added, ['steps', 0], -1).definition).toBe(added);

    const removed = removeStep(added, ['steps', 2, 'input', 'steps', 0]);
    expect(valueAt(removed, ['steps', 2, 'input', 'steps'])).toEqual([]);
  });

  test('renaming a step renames what reads it, and nothing else', () => {
    const { definition: renamed, references } = renameStep(definition, ['steps', 0], 'start');
    expect(valueAt(renamed, ['steps', 0, 'stepId'])).toBe('start');
    expect(valueAt(renamed, ['steps', 1, 'input', 'condition'])).toBe('start.v > 0');
    expect(valueAt(renamed, ['steps', 4, 'input', 'values', 'from'])).toBe('{{ start.v }} {{ yes.v }}');
    expect(references).toBe(2);
    const other = renameStep({ ...definition, steps: [set('first'), set('firstly', { a: '{{ firstly.x }} first {{ x.first }}' })] }, ['steps', 0], 'one');
    expect(valueAt(other.definition, ['steps', 1, 'input', 'values', 'a'])).toBe('{{ firstly.x }} first {{ x.first }}');
    expect(other.references).toBe(0);
  });

  test('a duplicate gets fresh ids, its own steps read each other under them', () => {
    const source = { name: 'x', steps: [{ stepId: 'each', stepType: 'core.loop', input: { items: '[]', steps: [set('a'), set('b', { v: '{{ a.v }}' })] } }] };
    const { definition: copied, stepId } = duplicateStep(source, ['steps', 0]);
    expect(stepId).toBe('each_copy');
    expect(valueAt(copied, ['steps', 1, 'input', 'steps', 1])).toEqual(set('b_copy', { v: '{{ a_copy.v }}' }));
    expect(valueAt(copied, ['steps', 0])).toEqual(source.steps[0]);
  });
});

describe('a run drawn on its graph', () => {
  const record = (stepId: string, extra: Partial<RecordedStep> = {}): RecordedStep => ({
    stepId,
    stepType: 'core.set',
    parentStepId: null,
    itemIndex: null,
    status: 'completed',
    output: {},
    durationMs: 5,
    ...extra,
  });
  const steps: RecordedStep[] = [
    record('first'),
    record('big', { stepType: 'core.if', output: { result: false, branch: 'else' } }),
    record('each[0].inner', { parentStepId: 'each', itemIndex: 0 }),
    record('each[1].inner', { parentStepId: 'each', itemIndex: 1, status: 'failed' }),
    record('each[2].inner', { parentStepId: 'each', itemIndex: 2 }),
    record('each', { stepType: 'core.loop' }),
  ];

  test("a loop counts its items and its body shows the chosen item's record", () => {
    expect(loopItems(steps).get('each')).toEqual({ done: 2, failed: 1, statuses: ['completed', 'failed', 'completed'] });
    const marks = runMarks(steps, [{ stepId: 'approval', event: 'ok', until: '2026-01-01T00:00:00Z' }], () => 1);
    expect(marks.get('each')?.detail).toMatch(/^2 items done · 1 failed/);
    expect(marks.get('inner')).toMatchObject({ status: 'failed', detail: expect.stringContaining('item 1') });
    expect(marks.get('approval')).toEqual({ status: 'waiting', detail: 'waits for event ok' });
    expect(marks.has('yes')).toBe(false);
  });

  test('the edges taken follow the branch the if took, through the join and into the loop body', () => {
    const { graph, marks, taken } = runOverlay(definition.steps, [{ id: 'trigger:hook', label: 'hook', detail: '' }], steps, [], () => 0);
    const edge = (source: string, label?: string) => graph.edges.find((e) => e.source === source && (label === undefined || e.label === label))!.id;
    expect(taken.has(edge('trigger:hook'))).toBe(true);
    expect(taken.has(edge('big', 'else'))).toBe(true);
    expect(taken.has(edge('big', 'then'))).toBe(false);
    expect(taken.has(edge('big::else'))).toBe(true);
    expect(taken.has(edge('join-1'))).toBe(true);
    expect(taken.has(edge(loopBodyEntry('each')))).toBe(true);
    expect(marks.get('inner')?.status).toBe('completed');
    // A failed step leads nowhere.
    const failed = runOverlay(definition.steps, [], [record('first', { status: 'failed' })], [], () => 0);
    expect(failed.taken.has(edge('first'))).toBe(false);
    expect(failed.taken.size).toBe(1);
  });
});
