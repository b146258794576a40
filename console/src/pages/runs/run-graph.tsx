import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ErrorBox } from '../../ui/error-box';
import { StatusBadge } from '../../ui/status-badge';
import type { Loaded } from '../../ui/use-api';
import { bodyRecordPrefix, loopItems, runOverlay } from '../workflows/graph/run-overlay';
import { stepLabel } from '../workflows/graph/step-catalog';
import WorkflowGraph from '../workflows/graph/workflow-graph';
import type { WorkflowVersion } from '../workflows/workflow-model';
import type { Execution, ExecutionStep } from './run-model';
import { StepValue } from './step-value';

interface Props {
  execution: Execution;
  /** The version the run used, as the run page read it (its timeline nests branches by it too). */
  version: Loaded<WorkflowVersion>;
  /** Where "Replay from here" of a top-level step leads; absent when the run may not be replayed. */
  replayLink?(stepId: string): string;
}

/**
 * A run on its version's graph: each node coloured by its step's status, the
 * branches taken drawn strong, a loop's items counted with any one item's
 * steps shown in its body, a parked wait saying what it waits for. A node
 * opens its record: input, output, error, and "Replay from here".
 */
export default function RunGraph({ execution, version, replayLink }: Props) {
  const [selected, setSelected] = useState<string>();
  const [items, setItems] = useState<Record<string, number>>({});
  const steps = useMemo(() => execution.steps ?? [], [execution.steps]);
  const waits = useMemo(() => execution.waiting ?? [], [execution.waiting]);
  const loops = useMemo(() => loopItems(steps), [steps]);
  const triggers = useMemo(
    () => [
      execution.trigger
        ? { id: `trigger:${execution.trigger.id}`, label: execution.trigger.name, detail: `started this ${execution.mode} run` }
        : { id: 'trigger:run', label: `${execution.mode} run`, detail: 'started from the API, a test or another run' },
    ],
    [execution.trigger, execution.mode],
  );
  const overlay = useMemo(
    () =>
      version.data
        ? runOverlay(version.data.definition.steps, triggers, steps, waits, (loop) => items[loop] ?? firstFailed(loops.get(loop)?.statuses))
        : undefined,
    [version.data, triggers, steps, waits, items, loops],
  );

  if (version.error) {
    return (
      <>
        <p className="muted">The version this run used could not be read, so it is not drawn; the timeline shows its steps.</p>
        <ErrorBox error={version.error} />
      </>
    );
  }
  if (!overlay || !version.data) return <p className="page-status">Loading the graph…</p>;

  const node = selected ? overlay.graph.nodes.find((n) => n.id === selected) : undefined;
  const step = node && (node.kind === 'step' || node.kind === 'loop') ? node.step : undefined;
  const container = node?.container;
  const item = container ? (items[container] ?? firstFailed(loops.get(container)?.statuses)) : undefined;
  const record = step ? recordOf(steps, step.stepId, container, item) : undefined;
  const loop = step ? loops.get(step.stepId) : undefined;

  return (
    <div className={`graph-editor ${step ? 'has-panel' : ''}`}>
      <div className="graph-column">
        {execution.draft && (
          <p className="muted">This run tested a draft: it is drawn on version {execution.workflowVersion}, which its steps may differ from.</p>
        )}
        <WorkflowGraph
          steps={version.data.definition.steps}
          triggers={triggers}
          label={`Run graph of ${execution.workflowName}: Tab to a step and press Enter to open its record`}
          selected={selected}
          onSelect={setSelected}
          marks={overlay.marks}
          taken={overlay.taken}
        />
      </div>
      {step && (
        <aside className="step-panel" aria-labelledby="run-step-title">
          <div className="step-panel-head">
            <h2 id="run-step-title">
              {stepLabel(step.stepType)} <span className="mono muted">{step.stepId}</span>
            </h2>
            <button type="button" className="link-button" onClick={() => setSelected(undefined)}>
              Close
            </button>
          </div>
          {loop && (
            <LoopItemPicker
              loopId={step.stepId}
              statuses={loop.statuses}
              index={items[step.stepId] ?? firstFailed(loop.statuses)}
              onPick={(i) => setItems((all) => ({ ...all, [step.stepId]: i }))}
            />
          )}
          {container && item !== undefined && (
            <p className="muted">
              Item {item} of loop {container}: pick another in the loop's panel.
            </p>
          )}
          {waits.some((w) => w.stepId === step.stepId) && <p>{overlay.marks.get(step.stepId)?.detail}: the run is parked here.</p>}
          {record ? (
            <>
              <p>
                <StatusBadge status={record.status} /> {record.durationMs} ms · attempt {record.attempt}
              </p>
              {record.error && <pre className="error-box">{record.error}</pre>}
              <h3>Input</h3>
              <StepValue value={record.input} omitted={record.omitted?.input} label={`Input of ${record.stepId}`} />
              <h3>Output</h3>
              <StepValue value={record.output} omitted={record.omitted?.output} label={`Output of ${record.stepId}`} />
              {replayLink && record.parentStepId === null && (
                <p>
                  <Link className="button" to={replayLink(record.stepId)}>
                    Replay from here
                  </Link>
                </p>
              )}
            </>
          ) : (
            !waits.some((w) => w.stepId === step.stepId) && <p className="muted">The run did not reach this step{container ? ' for this item' : ''}.</p>
          )}
        </aside>
      )}
    </div>
  );
}

/** A loop's item to show: the first that failed, else the first. */
const firstFailed = (statuses: ReadonlyArray<string | undefined> | undefined) => Math.max(0, statuses?.indexOf('failed') ?? 0);

/** The record of a step: a top-level one by its id, a loop body's for the item shown. */
function recordOf(steps: readonly ExecutionStep[], stepId: string, loopId: string | undefined, item: number | undefined) {
  const id = loopId !== undefined && item !== undefined ? `${bodyRecordPrefix(loopId, item)}${stepId}` : stepId;
  return steps.find((s) => s.stepId === id);
}

function LoopItemPicker({
  loopId,
  statuses,
  index,
  onPick,
}: {
  loopId: string;
  statuses: ReadonlyArray<string | undefined>;
  index: number;
  onPick(i: number): void;
}) {
  const failed = statuses.flatMap((s, i) => (s === 'failed' ? [i] : []));
  return (
    <div className="loop-items">
      <p>
        {statuses.filter(Boolean).length} item{statuses.filter(Boolean).length === 1 ? '' : 's'} recorded: {statuses.filter((s) => s === 'completed').length}{' '}
        done, {failed.length} failed.
      </p>
      <label htmlFor={`loop-item-${loopId}`}>Show item</label>{' '}
      <input
        id={`loop-item-${loopId}`}
        type="number"
        min={0}
        max={Math.max(0, statuses.length - 1)}
        value={index}
        onChange={(e) => onPick(Math.min(Math.max(0, Number(e.target.value)), statuses.length - 1))}
      />{' '}
      <span className="muted">(its steps are drawn in the loop's body)</span>
      {failed.length > 0 && (
        <p>
          Failed items:{' '}
          {failed.slice(0, 20).map((i) => (
            <button key={i} type="button" className="link-button" onClick={() => onPick(i)}>
              {i}
            </button>
          ))}
          {failed.length > 20 && ` and ${failed.length - 20} more`}
        </p>
      )}
    </div>
  );
}
