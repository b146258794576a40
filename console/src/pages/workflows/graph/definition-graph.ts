/**
 * A workflow definition as a graph: what is drawn, before any position is
 * known. Steps are nodes in order; a `core.if`'s branches and a `core.wait`'s
 * timeout path run side by side and meet again at a join; a `core.loop`'s body
 * is a graph of its own drawn inside the loop's box; a `core.return` ends its
 * path. Every edge says where a step inserted on it would go, so the editor
 * acts on the definition and the graph is only ever derived from it.
 */

/** A step as the definition holds it; its input is read only where the graph needs it (branches, bodies, children). */
export interface DefinitionStep {
  stepId: string;
  stepType: string;
  name?: string;
  input?: unknown;
}

/** Where a step sits in the definition: the keys from the definition's root to it (`['steps', 2, 'input', 'then', 0]`). */
export type StepPath = ReadonlyArray<string | number>;

/** A place a step may be inserted: the array that would hold it (its path) and the index it would take. */
export interface InsertionPoint {
  list: StepPath;
  index: number;
  /** Which step types that list accepts (a loop body takes fewer). */
  scope: 'top' | 'branch' | 'loop-body';
}

export type GraphNode =
  | { id: string; kind: 'trigger'; label: string; detail: string; container?: string }
  | { id: string; kind: 'step'; step: DefinitionStep; path: StepPath; container?: string; ends: boolean }
  | { id: string; kind: 'join'; container?: string }
  | { id: string; kind: 'loop'; step: DefinitionStep; path: StepPath; container?: string };

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** then, else, timeout, event: which way a branching step went. */
  label?: string;
  insert?: InsertionPoint;
}

export interface DefinitionGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A trigger as the graph's entry: a webhook, a schedule, or (when there is none) the API and test runs. */
export interface GraphTrigger {
  id: string;
  label: string;
  detail: string;
}

/** The step types whose input holds steps of their own. */
export const BRANCHING_TYPES = new Set(['core.if', 'core.wait', 'core.loop']);

const stepsAt = (value: unknown): DefinitionStep[] => (Array.isArray(value) ? (value.filter((s) => s && typeof s === 'object') as DefinitionStep[]) : []);

const inputOf = (step: DefinitionStep): Record<string, unknown> =>
  step.input && typeof step.input === 'object' && !Array.isArray(step.input) ? (step.input as Record<string, unknown>) : {};

/** The node ids of a loop's body belong to the loop's box, so a step id alone names a node everywhere. */
export const loopBodyEntry = (loopId: string) => `${loopId}::start`;
export const loopBodyExit = (loopId: string) => `${loopId}::end`;
/** The point an empty branch passes through: `check::else`. */
export const emptyBranch = (stepId: string, label: string) => `${stepId}::${label}`;
/** Where the paths that do not return meet after the last step. */
export const GRAPH_END = '::end';

/** Builds the graph of a definition's steps, entered from its triggers. */
export function definitionGraph(steps: unknown, triggers: GraphTrigger[]): DefinitionGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  let joins = 0;

  const edge = (source: string, target: string, extra: Omit<GraphEdge, 'id' | 'source' | 'target'> = {}) =>
    edges.push({ id: `${source}->${target}${extra.label ? `:${extra.label}` : ''}`, source, target, ...extra });

  /** Where a path stands: the node ids it leaves from and, for the first of them, the label of the edge that leaves. */
  interface Open {
    from: string;
    label?: string;
    /** Where a step inserted right after this end goes: the end of the list the path runs in. */
    insert?: InsertionPoint;
  }

  /**
   * Draws `list` after the `open` ends and answers the ends left open after it
   * (none when every path returned). `list` is the steps' path, for insertion.
   */
  const sequence = (items: DefinitionStep[], list: StepPath, scope: InsertionPoint['scope'], open: Open[], container?: string): Open[] => {
    let ends = open;
    items.forEach((step, index) => {
      const path = [...list, index];
      const insert = { list, index, scope };
      const input = inputOf(step);
      const enter = (target: string) => ends.forEach((o) => edge(o.from, target, { label: o.label, insert }));

      if (step.stepType === 'core.loop') {
        nodes.push({ id: step.stepId, kind: 'loop', step, path, container });
        enter(step.stepId);
        const start = loopBodyEntry(step.stepId);
        const finish = loopBodyExit(step.stepId);
        nodes.push({ id: start, kind: 'join', container: step.stepId });
        const body = sequence(stepsAt(input.steps), [...path, 'input', 'steps'], 'loop-body', [{ from: start }], step.stepId);
        nodes.push({ id: finish, kind: 'join', container: step.stepId });
        body.forEach((o) => edge(o.from, finish, { label: o.label, insert: o.insert }));
        ends = [{ from: step.stepId }];
        return;
      }

      nodes.push({ id: step.stepId, kind: 'step', step, path, container, ends: step.stepType === 'core.return' });
      enter(step.stepId);
      if (step.stepType === 'core.return') {
        ends = [];
        return;
      }

      const branches: Array<{ label: string; key: StepPath; steps: DefinitionStep[] }> = [];
      if (step.stepType === 'core.if') {
        branches.push({ label: 'then', key: ['then'], steps: stepsAt(input.then) });
        branches.push({ label: 'else', key: ['else'], steps: stepsAt(input.else) });
      } else if (step.stepType === 'core.wait' && Array.isArray(input.onTimeout)) {
        branches.push({ label: input.event ? 'event' : 'done', key: [], steps: [] });
        branches.push({ label: 'timeout', key: ['onTimeout'], steps: stepsAt(input.onTimeout) });
      }
      if (branches.length === 0) {
        ends = [{ from: step.stepId }];
        return;
      }

      const join = `join-${++joins}`;
      const after: Open[] = [];
      for (const branch of branches) {
        const list = branch.key.length ? [...path, 'input', ...branch.key] : undefined;
        const branchScope: InsertionPoint['scope'] = scope === 'loop-body' ? scope : 'branch';
        if (branch.steps.length > 0 && list) {
          after.push(...sequence(branch.steps, list, branchScope, [{ from: step.stepId, label: branch.label }], container));
          continue;
        }
        // An empty branch is a point of its own (beside the other branch, not on top of it); a step inserted on it opens the branch.
        const empty = emptyBranch(step.stepId, branch.label);
        nodes.push({ id: empty, kind: 'join', container });
        const insert = list ? { list, index: 0, scope: branchScope } : undefined;
        edge(step.stepId, empty, { label: branch.label, insert });
        // The edge on to the join offers no second button for the same place.
        after.push({ from: empty });
      }
      if (after.length > 0) {
        nodes.push({ id: join, kind: 'join', container });
        after.forEach((o) => edge(o.from, join, { label: o.label, insert: o.insert }));
        ends = [{ from: join }];
      } else {
        ends = [];
      }
    });
    const append = { list, index: items.length, scope };
    return ends.map((o) => ({ ...o, insert: append }));
  };

  const entries = triggers.length > 0 ? triggers : [{ id: 'trigger:manual', label: 'API or test run', detail: 'No trigger: started from the API or a test' }];
  for (const t of entries) nodes.push({ id: t.id, kind: 'trigger', label: t.label, detail: t.detail });
  const top = stepsAt(steps);
  const ends = sequence(
    top,
    ['steps'],
    'top',
    entries.map((t) => ({ from: t.id })),
  );
  // The last edge of a path that does not return offers "add a step at the end".
  if (ends.length > 0) {
    nodes.push({ id: GRAPH_END, kind: 'join' });
    ends.forEach((o) => edge(o.from, GRAPH_END, { label: o.label, insert: o.insert }));
  }
  return { nodes, edges };
}
