import { useState } from 'react';
import { Link } from 'react-router';
import { formatDuration, formatTime } from '../../ui/format';
import { StatusBadge } from '../../ui/status-badge';
import {
  MODEL_STEP_TYPE,
  replayMarkLabel,
  TOOL_STEP_TYPE,
  totalUsage,
  toolNameOf,
  usageOf,
  usageText,
  type ExecutionStep,
  type StepNode,
  type TokenUsage,
} from './run-model';
import { StepValue } from './step-value';

interface Span {
  start: number;
  total: number;
}

const tokens = (u: TokenUsage) => `${u.inputTokens.toLocaleString()} in · ${u.outputTokens.toLocaleString()} out tokens`;

/** Where a step's bar sits on the run's time axis, in percent (at least a sliver, so an instant step still shows). */
function barStyle(step: ExecutionStep, span: Span) {
  const left = Math.min(100, Math.max(0, ((Date.parse(step.startedAt) - span.start) / span.total) * 100));
  const width = Math.max(0.6, Math.min(100 - left, (step.durationMs / span.total) * 100));
  return { marginLeft: `${left}%`, width: `${width}%` };
}

const MARK_HINT = {
  reused: "the original's output, not run again",
  changed: 'output differs from the original',
  unchanged: 'run again, same output as the original',
  new: 'the original did not run this step',
};

/**
 * The run's steps in the order they ran, each a row with a bar placed by its start and sized by its duration; a row opens to its values.
 * A branch's steps are nested under the step that chose it, a loop's records numbered by item, and a step the run is parked at ends the list.
 * `replayLink`, when given, is where a step's "Replay from here" leads (the run page with its replay form open).
 */
export function StepTimeline({
  nodes,
  span,
  replayLink,
  waiting = [],
}: {
  nodes: StepNode[];
  span: Span;
  replayLink?: (stepId: string) => string;
  waiting?: ReadonlyArray<{ stepId: string; event: string | null; until: string }>;
}) {
  return (
    <ol className="timeline" aria-label="Steps">
      {nodes.map((node) => (
        <StepRow key={node.step.stepId} node={node} span={span} replayLink={replayLink} />
      ))}
      {waiting.map((w) => (
        <li key={w.stepId} className="step waiting">
          <div className="step-row step-parked">
            <span className="step-name">
              <strong>{w.stepId}</strong> <span className="muted">core.wait</span>
            </span>
            <span className="step-status">
              <StatusBadge status="waiting" />
            </span>
            <span className="step-track muted">
              {w.event ? `waits for the event ${w.event}` : 'waits for its time'} until {formatTime(w.until)}
            </span>
            <span className="step-duration" />
          </div>
        </li>
      ))}
    </ol>
  );
}

function subStepLabel(step: ExecutionStep): string {
  if (step.itemIndex !== null && step.itemIndex !== undefined) return `item ${step.itemIndex} · ${step.stepType}`;
  if (step.stepType === MODEL_STEP_TYPE) return 'model call';
  if (step.stepType === TOOL_STEP_TYPE) return `tool ${toolNameOf(step) ?? ''}`.trim();
  return step.stepType;
}

interface RowProps {
  node?: StepNode;
  step?: ExecutionStep;
  span: Span;
  nested?: boolean;
  replayLink?: (stepId: string) => string;
}

/** A sub-step's own name: an agent call's after its step's (`ask.model-1` → `model-1`), a loop record's after its item (`each[3].post` → `post`). */
const subStepName = (step: ExecutionStep) => {
  const item = step.stepId.indexOf('].');
  return item >= 0 ? step.stepId.slice(item + 2) : step.stepId.slice(step.stepId.lastIndexOf('.') + 1);
};

function StepRow({ node, step: given, span, nested = false, replayLink }: RowProps) {
  const [open, setOpen] = useState(false);
  const step = (node?.step ?? given)!;
  const childSteps = node?.children ?? [];
  const detailId = `step-detail-${step.stepId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const usage = step.stepType === MODEL_STEP_TYPE ? usageOf(step) : childSteps.length > 0 ? totalUsage(childSteps) : undefined;
  const name = nested ? subStepName(step) : step.stepId;
  const link = !nested && step.parentStepId === null ? replayLink?.(step.stepId) : undefined;
  return (
    <li className={`step ${step.status}${nested ? ' sub-step' : ''}`}>
      <button type="button" className="step-row" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen(!open)}>
        <span className="step-name">
          <span className="step-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <strong>{name}</strong>{' '}
          <span className="muted">{nested ? subStepLabel(step) : node?.branch ? `${node.branch} · ${step.stepType}` : step.stepType}</span>
          {step.replay && (
            <>
              {' '}
              <span className={`badge replay-mark ${replayMarkLabel(step.replay)}`} title={MARK_HINT[replayMarkLabel(step.replay)]}>
                {replayMarkLabel(step.replay)}
              </span>
            </>
          )}
        </span>
        <span className="step-status">
          <StatusBadge status={step.status} />
        </span>
        <span className="step-track" aria-hidden="true">
          <span className={`step-bar ${step.status}`} style={barStyle(step, span)} />
        </span>
        <span className="step-duration">{formatDuration(step.durationMs)}</span>
      </button>
      {link && (
        <p className="step-replay">
          <Link to={link}>
            Replay from here<span className="visually-hidden"> (step {step.stepId})</span>
          </Link>
        </p>
      )}
      {step.usage ? <p className="step-tokens muted">{usageText(step.usage)}</p> : usage && <p className="step-tokens muted">{tokens(usage)}</p>}
      {step.status === 'failed' && step.error && (
        <div className="error-box step-error" role="note" aria-label={`Error of ${step.stepId}`}>
          <pre>{step.error}</pre>
        </div>
      )}
      {open && (
        <div id={detailId} className="step-detail">
          <p className="muted">
            Started {formatTime(step.startedAt)} · ended {formatTime(step.finishedAt)} · attempt {step.attempt}
          </p>
          <div className="step-values">
            <div>
              <h3>Input</h3>
              <StepValue value={step.input} omitted={step.omitted?.input} label={`Input of ${step.stepId}`} />
            </div>
            <div>
              <h3>Output</h3>
              <StepValue value={step.output} omitted={step.omitted?.output} label={`Output of ${step.stepId}`} />
            </div>
          </div>
        </div>
      )}
      {childSteps.length > 0 && (
        <ol className="timeline sub-steps" aria-label={`${step.stepType === 'core.loop' ? 'Items' : 'Calls'} of ${step.stepId}`}>
          {childSteps.map((child) => (
            <StepRow key={child.stepId} step={child} span={span} nested />
          ))}
        </ol>
      )}
      {node && node.inner.length > 0 && (
        <ol className="timeline branch-steps" aria-label={`Steps ${step.stepId} chose`}>
          {node.inner.map((inner) => (
            <StepRow key={inner.step.stepId} node={inner} span={span} replayLink={replayLink} />
          ))}
        </ol>
      )}
    </li>
  );
}
