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
 * `replayLink`, when given, is where a top-level step's "Replay from here" leads (the run page with its replay form open).
 */
export function StepTimeline({ nodes, span, replayLink }: { nodes: StepNode[]; span: Span; replayLink?: (stepId: string) => string }) {
  return (
    <ol className="timeline" aria-label="Steps">
      {nodes.map((node) => (
        <StepRow
          key={node.step.stepId}
          step={node.step}
          span={span}
          childSteps={node.children}
          replayLink={node.step.parentStepId === null ? replayLink?.(node.step.stepId) : undefined}
        />
      ))}
    </ol>
  );
}

function subStepLabel(step: ExecutionStep): string {
  if (step.stepType === MODEL_STEP_TYPE) return 'model call';
  if (step.stepType === TOOL_STEP_TYPE) return `tool ${toolNameOf(step) ?? ''}`.trim();
  return step.stepType;
}

interface RowProps {
  step: ExecutionStep;
  span: Span;
  childSteps?: ExecutionStep[];
  nested?: boolean;
  replayLink?: string;
}

function StepRow({ step, span, childSteps = [], nested = false, replayLink }: RowProps) {
  const [open, setOpen] = useState(false);
  const detailId = `step-detail-${step.stepId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const usage = step.stepType === MODEL_STEP_TYPE ? usageOf(step) : childSteps.length > 0 ? totalUsage(childSteps) : undefined;
  const name = nested ? step.stepId.slice(step.stepId.lastIndexOf('.') + 1) : step.stepId;
  return (
    <li className={`step ${step.status}${nested ? ' sub-step' : ''}`}>
      <button type="button" className="step-row" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen(!open)}>
        <span className="step-name">
          <span className="step-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <strong>{name}</strong> <span className="muted">{nested ? subStepLabel(step) : step.stepType}</span>
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
      {replayLink && (
        <p className="step-replay">
          <Link to={replayLink}>
            Replay from here<span className="visually-hidden"> (step {step.stepId})</span>
          </Link>
        </p>
      )}
      {usage && <p className="step-tokens muted">{tokens(usage)}</p>}
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
        <ol className="timeline sub-steps" aria-label={`Calls of ${step.stepId}`}>
          {childSteps.map((child) => (
            <StepRow key={child.stepId} step={child} span={span} nested />
          ))}
        </ol>
      )}
    </li>
  );
}
