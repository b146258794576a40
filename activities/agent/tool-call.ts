import { ApplicationFailure } from '@temporalio/common';
import type { StepRow } from '../../src/executions/executions.repository';
import { AppError } from '../../src/errors/errors';
import { TemplateError, asText } from '../../src/templates/template-renderer';
import type { AgentToolDefinition } from '../../src/workflows/definition.schemas';
import type { AgentToolCallRequest, AgentToolCallResult } from '../../workflows/agent.types';
import type { createDataStoreActivities } from '../data-stores';
import type { OutboundHttp } from '../../src/outbound/outbound-http';
import { idempotencyKey } from '../steps/idempotency-key';
import { sendHttpRequest } from '../steps/http-step';
import { StepError } from '../steps/step-errors';
import { heartbeating, openScope, type StepRunnerDeps } from '../steps/step-runner';
import type { StepScope } from '../steps/step-scope';
import { capResult } from './conversation';
import { modelStepId, recordSubStep, loadSubSteps, TOOL_STEP_TYPE, toolStepId, type ModelTurnOutput, type RecordedToolCall } from './sub-steps';
import { argumentProblems } from './tool-arguments';

/** What a tool did: a result for the model, or its error. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: string };

/** A failure of the tool itself, reported to the model rather than failing the step. */
export class ToolFailed extends Error {}

/**
 * The tool call `callId` of model turn `modelIteration`, as its record holds
 * it, and the tool it names; the tool call's own record if it was already
 * written (a retried activity whose call had completed).
 */
export async function findToolCall(deps: StepRunnerDeps, request: AgentToolCallRequest) {
  const subSteps = await loadSubSteps(deps, request);
  const recorded = subSteps.find((s) => s.stepId === toolStepId(request.step.stepId, request.toolCallNumber));
  const turn = subSteps.find((s) => s.stepId === modelStepId(request.step.stepId, request.modelIteration) && s.status === 'completed');
  const output = turn?.output as ModelTurnOutput | undefined;
  const call = output && 'toolCalls' in output ? output.toolCalls.find((c) => c.callId === request.callId) : undefined;
  if (!call) throw new StepError(`The record of model call ${request.modelIteration} holds no tool call ${request.callId}`, 'AgentRecordMissing');
  const tool = (request.step.input.tools as AgentToolDefinition[]).find((t) => t.name === call.tool);
  return { call, tool, recorded };
}

/** Records a tool call's outcome as `<stepId>.tool-<n>`: the result (cut for the model) or the error. */
export async function recordToolCall(
  deps: StepRunnerDeps,
  request: AgentToolCallRequest,
  scope: StepScope,
  call: RecordedToolCall,
  outcome: ToolOutcome,
  startedAt: Date,
) {
  await recordSubStep(deps, request, scope, {
    stepId: toolStepId(request.step.stepId, request.toolCallNumber),
    stepType: TOOL_STEP_TYPE,
    status: outcome.ok ? 'completed' : 'failed',
    input: { tool: call.tool, callId: call.callId, args: call.args },
    output: outcome.ok ? capResult(outcome.result) : null,
    error: outcome.ok ? null : outcome.error,
    startedAt,
  });
}

/** A tool's own failure becomes its error for the model; the activity's faults (database, worker) are thrown for Temporal to retry. */
export function asToolError(err: unknown): string | undefined {
  if (err instanceof ToolFailed || err instanceof StepError || err instanceof TemplateError) return err.message;
  if (err instanceof AppError && err.status < 500) return err.message;
  if (err instanceof ApplicationFailure && err.nonRetryable) return err.message;
  return undefined;
}

export const recordedOutcome = (row: StepRow): AgentToolCallResult => ({ ok: row.status === 'completed' });

/**
 * `agentToolCall`: an HTTP or data store tool. The arguments are checked
 * against the tool's schema before it runs; a bad argument, an unknown tool
 * or a failing tool is recorded and goes back to the model as the tool's
 * error. A call already recorded is not run again.
 */
export function createToolCall(deps: StepRunnerDeps, http: OutboundHttp, records: ReturnType<typeof createDataStoreActivities>) {
  return {
    agentToolCall(request: AgentToolCallRequest): Promise<AgentToolCallResult> {
      return heartbeating(async () => {
        const { call, tool, recorded } = await findToolCall(deps, request);
        if (recorded) return recordedOutcome(recorded);
        const startedAt = new Date();
        const scope = await openScope(deps, request, { args: call.args });
        let outcome: ToolOutcome;
        try {
          outcome = { ok: true, result: await runTool(request, tool, call, scope, http, records) };
        } catch (err) {
          const error = asToolError(err);
          if (error === undefined) throw err;
          outcome = { ok: false, error };
        }
        await recordToolCall(deps, request, scope, call, outcome, startedAt);
        return { ok: outcome.ok };
      });
    },
  };
}

async function runTool(
  request: AgentToolCallRequest,
  tool: AgentToolDefinition | undefined,
  call: RecordedToolCall,
  scope: StepScope,
  http: OutboundHttp,
  records: ReturnType<typeof createDataStoreActivities>,
): Promise<unknown> {
  const names = (request.step.input.tools as AgentToolDefinition[]).map((t) => t.name).join(', ');
  if (!tool) throw new ToolFailed(`There is no tool named "${call.tool}"; the tools are: ${names}`);
  const problems = argumentProblems(tool, call.args);
  if (problems) throw new ToolFailed(problems);
  const args = call.args as Record<string, unknown>;
  if (tool.type === 'http') {
    const key = idempotencyKey(request.run.executionId, toolStepId(request.step.stepId, request.toolCallNumber));
    const { response } = await sendHttpRequest(scope, http, { ...tool.request, method: tool.request.method ?? 'GET' }, false, {}, key);
    // A binary answer's bytes mean nothing to a model (and would be cut): it learns their type and size.
    if (response.binary) return { status: response.status, body: null, contentType: response.headers['content-type'], bytes: response.binary.length };
    return { status: response.status, body: response.body ?? response.text };
  }
  if (tool.type === 'data-store') {
    const tableName = asText(await scope.render(tool.tableName));
    const organizationId = request.run.organizationId;
    if (tool.operation === 'get') {
      const record = await records.readDataStoreRecord({ organizationId, tableName, key: String(args.key) });
      return { found: record !== null, value: record?.value ?? null };
    }
    const outcome = await records.writeDataStoreRecords({
      organizationId,
      tableName,
      records: [{ key: String(args.key), value: args.value as Record<string, unknown>, ...(tool.ttlSeconds ? { ttlSeconds: tool.ttlSeconds } : {}) }],
    });
    return { key: String(args.key), created: outcome.created === 1 };
  }
  throw new ToolFailed(`The tool "${tool.name}" runs a workflow; it is not an HTTP or data store tool`);
}
