import { definitionGraph, loopBodyEntry, type DefinitionGraph } from './definition-graph';
import type { NodeMark } from './workflow-graph';

/** What the overlay reads of a run's step record (GET /executions/{id}). */
export interface RecordedStep {
  stepId: string;
  stepType: string;
  parentStepId: string | null;
  itemIndex?: number | null;
  status: 'completed' | 'failed';
  output?: unknown;
  durationMs: number;
}

/** A wait the run is parked at. */
export interface ParkedWait {
  stepId: string;
  event: string | null;
  until: string;
}

export interface LoopItems {
  /** Items whose last record completed, and those that failed. */
  done: number;
  failed: number;
  /** Each item's status by index (undefined: no record of it yet). */
  statuses: Array<'completed' | 'failed' | undefined>;
}

const formatMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

/** A loop body record's id names its item: `<loop>[<index>].<body step>`. */
export const bodyRecordPrefix = (loopId: string, index: number) => `${loopId}[${index}].`;

/** Each loop's items, from its body's records (an item ended with its last record). */
export function loopItems(steps: readonly RecordedStep[]): Map<string, LoopItems> {
  const byLoop = new Map<string, Map<number, 'completed' | 'failed'>>();
  for (const s of steps) {
    if (s.parentStepId === null || s.itemIndex === null || s.itemIndex === undefined) continue;
    const items = byLoop.get(s.parentStepId) ?? new Map<number, 'completed' | 'failed'>();
    // Records come in the order they ran: an item's last one says how it ended.
    items.set(s.itemIndex, s.status);
    byLoop.set(s.parentStepId, items);
  }
  const out = new Map<string, LoopItems>();
  for (const [loop, items] of byLoop) {
    // By item index: an item with no record yet (not started) is a hole.
    const statuses = Array.from({ length: Math.max(...items.keys()) + 1 }, (_, i) => items.get(i));
    out.set(loop, { done: statuses.filter((s) => s === 'completed').length, failed: statuses.filter((s) => s === 'failed').length, statuses });
  }
  return out;
}

/**
 * What each node shows of a run: its record's status and duration; a loop's
 * items done and failed, its body's nodes showing item `itemOf(loop)`; a
 * parked wait what it waits for. Steps the run never reached have no mark.
 */
export function runMarks(steps: readonly RecordedStep[], waits: readonly ParkedWait[], itemOf: (loopId: string) => number): Map<string, NodeMark> {
  const marks = new Map<string, NodeMark>();
  const items = loopItems(steps);
  for (const s of steps) {
    if (s.parentStepId !== null) continue;
    const loop = items.get(s.stepId);
    marks.set(s.stepId, {
      status: s.status,
      detail: loop ? `${loop.done} item${loop.done === 1 ? '' : 's'} done · ${loop.failed} failed · ${formatMs(s.durationMs)}` : formatMs(s.durationMs),
    });
  }
  for (const [loopId, loop] of items) {
    if (!marks.has(loopId)) marks.set(loopId, { status: 'running', detail: `${loop.done} done · ${loop.failed} failed so far` });
    const index = itemOf(loopId);
    for (const s of steps) {
      if (s.parentStepId !== loopId || s.itemIndex !== index) continue;
      const prefix = bodyRecordPrefix(loopId, index);
      if (s.stepId.startsWith(prefix)) marks.set(s.stepId.slice(prefix.length), { status: s.status, detail: `item ${index} · ${formatMs(s.durationMs)}` });
    }
  }
  for (const w of waits) {
    marks.set(w.stepId, { status: 'waiting', detail: w.event ? `waits for event ${w.event}` : `waits until ${new Date(w.until).toLocaleString()}` });
  }
  return marks;
}

const BRANCH_LABELS = new Set(['then', 'else', 'event', 'done', 'timeout']);

/**
 * The edges the run went along: out of every node it reached, into the next
 * one it reached, through a branching step only along the branch it took (a
 * core.if's recorded `branch`; a wait's timeout path when a step of it ran).
 */
export function takenEdges(graph: DefinitionGraph, marks: ReadonlyMap<string, NodeMark>, steps: readonly RecordedStep[], entry?: string): Set<string> {
  const reached = new Set<string>([...marks.keys()]);
  for (const n of graph.nodes) {
    if (n.kind === 'trigger' && (!entry || n.id === entry)) reached.add(n.id);
    // A loop's body starts when the loop does.
    if (n.kind === 'loop' && marks.has(n.id)) reached.add(loopBodyEntry(n.id));
  }
  const outputs = new Map(steps.filter((s) => s.parentStepId === null).map((s) => [s.stepId, s.output]));
  const branchOf = (source: string): string | undefined => {
    const out = outputs.get(source) as { branch?: string } | undefined;
    if (out?.branch) return out.branch;
    const timeout = graph.edges.find((e) => e.source === source && e.label === 'timeout');
    if (timeout) return reached.has(timeout.target) ? 'timeout' : graph.edges.find((e) => e.source === source && e.label !== 'timeout')?.label;
    return undefined;
  };
  const taken = new Set<string>();
  // Joins and loop starts are reached through the edges taken into them: repeat until nothing changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const e of graph.edges) {
      if (taken.has(e.id) || !reached.has(e.source)) continue;
      // A step that failed, or that the run is still at, led nowhere (yet).
      const status = marks.get(e.source)?.status;
      if (status === 'failed' || status === 'waiting' || status === 'running') continue;
      if (e.label && BRANCH_LABELS.has(e.label) && branchOf(e.source) !== e.label) continue;
      const target = graph.nodes.find((n) => n.id === e.target);
      if (!target) continue;
      if (target.kind === 'join' || reached.has(e.target)) {
        taken.add(e.id);
        if (!reached.has(e.target)) reached.add(e.target);
        changed = true;
      }
    }
  }
  return taken;
}

/** The graph of the steps with the run's marks and the edges it took; `entry`: the trigger that started it (all when unknown). */
export function runOverlay(
  definitionSteps: unknown,
  triggers: Parameters<typeof definitionGraph>[1],
  steps: readonly RecordedStep[],
  waits: readonly ParkedWait[],
  itemOf: (loopId: string) => number,
  entry?: string,
) {
  const graph = definitionGraph(definitionSteps, triggers);
  const marks = runMarks(steps, waits, itemOf);
  return { graph, marks, taken: takenEdges(graph, marks, steps, entry) };
}
