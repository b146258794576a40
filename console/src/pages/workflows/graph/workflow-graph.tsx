import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  BaseEdge,
  Background,
  Controls,
  EdgeLabelRenderer,
  getSmoothStepPath,
  Handle,
  Position,
  ReactFlow,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
  useReactFlow,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { StatusBadge } from '../../../ui/status-badge';
import { definitionGraph, type GraphNode, type GraphTrigger, type InsertionPoint } from './definition-graph';
import { layoutGraph } from './graph-layout';
import { stepLabel } from './step-catalog';
import '../../../ui/workflow-graph.css';

/** What a run recorded at a node: its status and a line under it (a loop's items, what a wait waits for, a duration). */
export interface NodeMark {
  status: string;
  detail?: string;
}

export interface WorkflowGraphProps {
  steps: unknown;
  triggers: GraphTrigger[];
  /** The canvas's accessible name. */
  label: string;
  selected?: string;
  onSelect?(stepId: string): void;
  /** Given: each edge offers "insert a step here" (the editor). */
  onInsert?(point: InsertionPoint, after: string): void;
  /** Given: each step shows what the run recorded (the run's page). */
  marks?: ReadonlyMap<string, NodeMark>;
  /** The edges a run took (ids), drawn strong; the others faint. */
  taken?: ReadonlySet<string>;
  /** Where a core.workflow step's child workflow is opened, by its name. */
  childHref?(name: string): string | undefined;
  /** Marks steps whose output is pinned (the draft). */
  pinned?: ReadonlySet<string>;
}

interface StepData extends Record<string, unknown> {
  node: Extract<GraphNode, { kind: 'step' | 'loop' }>;
  mark?: NodeMark;
  selected: boolean;
  pinned: boolean;
  childHref?: string;
}
interface TriggerData extends Record<string, unknown> {
  node: Extract<GraphNode, { kind: 'trigger' }>;
}
interface EdgeData extends Record<string, unknown> {
  insert?: InsertionPoint;
  after: string;
  onInsert?(point: InsertionPoint, after: string): void;
  taken?: boolean;
}

const handles = (
  <>
    <Handle type="target" position={Position.Top} isConnectable={false} />
    <Handle type="source" position={Position.Bottom} isConnectable={false} />
  </>
);

function StepCard({ data }: NodeProps<Node<StepData>>) {
  const { node, mark, pinned, childHref } = data;
  const step = node.step;
  const child = step.stepType === 'core.workflow' ? (step.input as { workflow?: string } | undefined)?.workflow : undefined;
  return (
    <div
      className={`graph-step type-${step.stepType.replace('.', '-')} ${mark ? `mark-${mark.status}` : ''} ${data.selected ? 'is-selected' : ''} ${node.kind === 'loop' ? 'is-loop' : ''}`}
    >
      {handles}
      <div className="graph-step-head">
        <span className="graph-step-type">{stepLabel(step.stepType)}</span>
        {pinned && <span className="graph-pin">pinned</span>}
        {mark && <StatusBadge status={mark.status} />}
      </div>
      <div className="graph-step-id mono">{step.stepId}</div>
      {(mark?.detail ?? step.name) && <div className="graph-step-detail">{mark?.detail ?? step.name}</div>}
      {child &&
        (childHref ? (
          <a className="graph-child nodrag" href={childHref} onClick={(e) => e.stopPropagation()}>
            runs {child} →
          </a>
        ) : (
          <div className="graph-child">runs {child}</div>
        ))}
    </div>
  );
}

function TriggerCard({ data }: NodeProps<Node<TriggerData>>) {
  return (
    <div className="graph-trigger">
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
      <div className="graph-step-type">{data.node.label}</div>
      <div className="graph-step-detail">{data.node.detail}</div>
    </div>
  );
}

function Join() {
  return (
    <div className="graph-join" aria-hidden="true">
      {handles}
    </div>
  );
}

/** An edge, its branch label, and in the editor a button that inserts a step on it. */
function FlowEdge({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, label, data, markerEnd }: EdgeProps<Edge<EdgeData>>) {
  const [path, x, y] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, borderRadius: 8 });
  const insert = data?.insert;
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} className={data?.taken === false ? 'graph-edge-faint' : data?.taken ? 'graph-edge-taken' : ''} />
      {(label || (insert && data?.onInsert)) && (
        <EdgeLabelRenderer>
          <div className="graph-edge-label nodrag nopan" style={{ transform: `translate(-50%, -50%) translate(${x}px, ${y}px)` }}>
            {label && <span className="graph-branch">{label}</span>}
            {insert && data?.onInsert && (
              <button
                type="button"
                className="graph-insert"
                aria-label={`Add a step after ${data.after}${label ? ` (${label})` : ''}`}
                title="Add a step here"
                onClick={() => data.onInsert!(insert, data.after)}
              >
                +
              </button>
            )}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

/**
 * Places the graph again when its width changes (the step panel opened or
 * closed), without remounting it: a remount would drop and redraw every node
 * and edge while a person (or a test) is about to use them.
 */
function Recenter({ x, y, zoom }: { x: number; y: number; zoom: number }) {
  const flow = useReactFlow();
  useEffect(() => {
    void flow.setViewport({ x, y, zoom });
  }, [flow, x, y, zoom]);
  return null;
}

const nodeTypes = { step: StepCard, trigger: TriggerCard, join: Join };
const edgeTypes = { flow: FlowEdge };

/** A stable label for what an edge leaves from: a step id, or "the trigger", or the branch's step. */
const describeSource = (graphNodes: Map<string, GraphNode>, id: string): string => {
  const node = graphNodes.get(id);
  if (!node) return id;
  if (node.kind === 'step' || node.kind === 'loop') return node.step.stepId;
  if (node.kind === 'trigger') return 'the trigger';
  return id.endsWith('::start') ? `the start of ${id.slice(0, -'::start'.length)}` : 'the branches';
};

/**
 * A workflow definition drawn as a graph (xyflow, laid out by dagre): steps
 * in order, branches side by side, loop bodies inside their loop. Nodes are
 * focusable; Enter or a click selects one (the caller shows its form or its
 * record). Positions come from the layout, so nodes are not dragged: order is
 * changed with the step's Move buttons, which also work from the keyboard.
 */
export default function WorkflowGraph(props: WorkflowGraphProps) {
  const { steps, triggers, label, selected, onSelect, onInsert, marks, taken, childHref, pinned } = props;
  const { nodes, edges } = useMemo(() => {
    const graph = definitionGraph(steps, triggers);
    const boxes = layoutGraph(graph);
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    // A parent comes before its children, as xyflow requires: loops are listed before the body nodes they hold.
    const ordered = [...graph.nodes].sort((a, b) => Number(a.container !== undefined) - Number(b.container !== undefined));
    const flowNodes: Node[] = ordered.map((n) => {
      const box = boxes.get(n.id)!;
      const base = {
        id: n.id,
        position: { x: box.x, y: box.y },
        width: box.width,
        height: box.height,
        ...(n.container ? { parentId: n.container, extent: 'parent' as const } : {}),
        draggable: false,
        connectable: false,
        // Where edges meet the node, known from the layout: xyflow otherwise draws an edge only once it has measured
        // both nodes' handles in the page, and CI saw an edge (with its insert button) wait for that indefinitely.
        handles: [
          ...(n.kind === 'trigger' ? [] : [{ type: 'target' as const, position: Position.Top, x: box.width / 2, y: 0, width: 1, height: 1 }]),
          { type: 'source' as const, position: Position.Bottom, x: box.width / 2, y: box.height, width: 1, height: 1 },
        ],
      };
      if (n.kind === 'trigger') return { ...base, type: 'trigger', data: { node: n }, selectable: false, ariaLabel: `Trigger: ${n.label}` };
      if (n.kind === 'join') return { ...base, type: 'join', data: {}, selectable: false, focusable: false };
      const mark = marks?.get(n.step.stepId);
      const child = n.step.stepType === 'core.workflow' ? (n.step.input as { workflow?: string } | undefined)?.workflow : undefined;
      return {
        ...base,
        type: 'step',
        ariaLabel: `Step ${n.step.stepId}, ${stepLabel(n.step.stepType)}${mark ? `, ${mark.status}` : ''}${pinned?.has(n.id) ? ', output pinned' : ''}`,
        data: { node: n, mark, selected: selected === n.id, pinned: pinned?.has(n.id) ?? false, childHref: child ? childHref?.(child) : undefined },
      };
    });
    const flowEdges: Edge[] = graph.edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      type: 'flow',
      label: e.label,
      focusable: false,
      selectable: false,
      data: { insert: e.insert, after: describeSource(byId, e.source), onInsert, taken: taken ? taken.has(e.id) : undefined },
    }));
    return { nodes: flowNodes, edges: flowEdges };
  }, [steps, triggers, marks, taken, selected, onInsert, childHref, pinned]);

  // The graph opens at a readable size from its top, centred: a long workflow scrolls (drag or wheel) rather than shrinking to fit.
  const host = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState<number>();
  useLayoutEffect(() => {
    const element = host.current;
    if (!element) return;
    // Rounded: a scrollbar coming and going does not move the graph.
    const measure = () => setWidth(Math.round(element.clientWidth / 16) * 16);
    measure();
    // Opening or closing the step panel changes the width: the graph is placed again for it.
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const roots = nodes.filter((n) => !n.parentId);
  const extent = {
    width: Math.max(...roots.map((n) => n.position.x + (n.width ?? 0)), 1),
    height: Math.max(...roots.map((n) => n.position.y + (n.height ?? 0)), 1),
  };
  const zoom = width ? Math.min(1, Math.max(0.55, (width - 48) / extent.width)) : 1;
  const viewport = { x: width ? Math.max(24, (width - extent.width * zoom) / 2) : 24, y: 24, zoom };
  const height = Math.min(760, Math.max(320, extent.height * zoom + 64));
  return (
    <div
      ref={host}
      className="workflow-graph"
      style={{ height }}
      role="group"
      aria-label={label}
      onKeyDown={(e) => {
        // A focused step node opens with Enter or Space, as a button would.
        const focused = (e.target as HTMLElement).closest('.react-flow__node');
        if (!focused || (e.key !== 'Enter' && e.key !== ' ') || e.target !== focused) return;
        const id = focused.getAttribute('data-id');
        if (id && nodes.some((n) => n.id === id && n.type === 'step')) {
          e.preventDefault();
          onSelect?.(id);
        }
      }}
    >
      {width !== undefined && (
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          defaultViewport={viewport}
          minZoom={0.1}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesFocusable={false}
          // Selection is the caller's (the `selected` prop): xyflow's own would be a second state to keep in step.
          elementsSelectable={false}
          onNodeClick={(_, node) => node.type === 'step' && onSelect?.(node.id)}
          deleteKeyCode={null}
          // Every node is drawn, not only those in view (onlyRenderVisibleElements): an edge is drawn only once both its
          // nodes have been measured, and CI saw the edge into an unmeasured join, with its insert button, never appear.
        >
          <Recenter x={viewport.x} y={viewport.y} zoom={viewport.zoom} />
          <Background gap={24} />
          <Controls showInteractive={false} />
        </ReactFlow>
      )}
    </div>
  );
}
