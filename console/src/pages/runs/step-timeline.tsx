import { useState } from 'react';
import { formatDuration, formatTime } from '../../ui/format';
import { StatusBadge } from '../../ui/status-badge';
import { MODEL_STEP_TYPE, TOOL_STEP_TYPE, totalUsage, toolNameOf, usageOf, type ExecutionStep, type StepNode, type TokenUsage } from './run-model';
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

/** The run's steps in the order they ran, each a row with a bar placed by its start and sized by its duration; a row opens to its values. */
export function StepTimeline({ nodes, span }: { nodes: StepNode[]; span: Span }) {
  return (
    <ol className="timeline" aria-label="Steps">
      {nodes.map((node) => (
        <StepRow key={node.step.stepId} step={node.step} span={span} childSteps={node.children} />
      ))}
    </ol>
  );
}

function subStepLabel(step: ExecutionStep): string {
  if (step.stepType === MODEL_STEP_TYPE) return 'model call';
  if (step.stepType === TOOL_STEP_TYPE) return `tool ${toolNameOf(step) ?? ''}`.trim();
  return step.stepType;
}

function StepRow({ step, span, childSteps = [], nested = false }: { step: ExecutionStep; span: Span; childSteps?: ExecutionStep[]; nested?: boolean }) {
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
        </span>
        <span className="step-status">
          <StatusBadge status={step.status} />
        </span>
        <span className="step-track" aria-hidden="true">
          <span className={`step-bar ${step.status}`} style={barStyle(step, span)} />
        </span>
        <span className="step-duration">{formatDuration(step.durationMs)}</span>
      </button>
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
              <StepValue value={step.input} label={`Input of ${step.stepId}`} />
            </div>
            <div>
              <h3>Output</h3>
              <StepValue value={step.output} label={`Output of ${step.stepId}`} />
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
