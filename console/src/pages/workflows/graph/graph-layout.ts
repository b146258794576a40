import dagre from '@dagrejs/dagre';
import type { DefinitionGraph, GraphNode } from './definition-graph';

/** A node's box: its top-left corner relative to the box that holds it (a loop's, or the canvas), and its size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const STEP_SIZE = { width: 232, height: 68 };
const TRIGGER_SIZE = { width: 232, height: 56 };
const JOIN_SIZE = { width: 14, height: 14 };
/** Room inside a loop's box around its body: a header with the loop's own card above, a margin elsewhere. */
export const LOOP_PADDING = { top: 84, side: 24, bottom: 20 };

/**
 * Positions every node. A loop's body is laid out first, as a graph of its
 * own, so the loop enters its parent's layout as one box of the body's size:
 * dagre places boxes, and drawing a body inside its loop needs no support for
 * edges that cross a box's border (dagre's compound graphs do not route them).
 */
export function layoutGraph(graph: DefinitionGraph): Map<string, Box> {
  const boxes = new Map<string, Box>();
  const byContainer = new Map<string | undefined, GraphNode[]>();
  for (const node of graph.nodes) {
    const list = byContainer.get(node.container) ?? [];
    list.push(node);
    byContainer.set(node.container, list);
  }

  const sizeOf = (node: GraphNode): { width: number; height: number } => {
    if (node.kind === 'trigger') return TRIGGER_SIZE;
    if (node.kind === 'join') return JOIN_SIZE;
    if (node.kind === 'step') return STEP_SIZE;
    const body = place(node.id);
    const inner = Math.max(STEP_SIZE.width, body.width);
    // A body narrower than the loop's own card is centred under it.
    const shift = (inner - body.width) / 2;
    for (const member of byContainer.get(node.id) ?? []) boxes.get(member.id)!.x += shift;
    return { width: inner + 2 * LOOP_PADDING.side, height: body.height + LOOP_PADDING.top + LOOP_PADDING.bottom };
  };

  /** Lays out one container's nodes; answers the size they take. */
  const place = (container: string | undefined): { width: number; height: number } => {
    const members = byContainer.get(container) ?? [];
    if (members.length === 0) return { width: 0, height: 0 };
    const g = new dagre.graphlib.Graph({ multigraph: true });
    g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 44, edgesep: 16, marginx: 0, marginy: 0 });
    g.setDefaultEdgeLabel(() => ({}));
    const inside = new Set(members.map((n) => n.id));
    for (const node of members) g.setNode(node.id, { ...sizeOf(node) });
    for (const e of graph.edges) {
      if (inside.has(e.source) && inside.has(e.target)) g.setEdge(e.source, e.target, { width: e.label ? 40 : 0, height: e.label ? 18 : 0 }, e.id);
    }
    dagre.layout(g);
    let width = 0;
    let height = 0;
    const offset = container === undefined ? { x: 0, y: 0 } : { x: LOOP_PADDING.side, y: LOOP_PADDING.top };
    for (const node of members) {
      const laid = g.node(node.id);
      const box = { x: laid.x - laid.width / 2 + offset.x, y: laid.y - laid.height / 2 + offset.y, width: laid.width, height: laid.height };
      boxes.set(node.id, box);
      width = Math.max(width, laid.x + laid.width / 2);
      height = Math.max(height, laid.y + laid.height / 2);
    }
    return { width, height };
  };

  place(undefined);
  return boxes;
}
