import type { Liquid } from 'liquidjs';
import type { FieldIssue } from '../errors/errors';
import { schemaIssues } from '../lib/organization-ajv';
import { analyzeTemplate } from '../templates/template-analysis';
import { isTemplate } from '../templates/template-engine';
import {
  LOOP_BODY_STEP_TYPES,
  MAX_LOOP_BODY_STEPS,
  type AgentToolDefinition,
  type LoopInputDefinition,
  type StepDefinition,
  type WaitInputDefinition,
  type WorkflowDefinitionInput,
} from './definition.schemas';

const ROOTS = new Set(['initial', '$env', '$connections', '$resume']);

/**
 * What the schema cannot see: every step id unique across the whole
 * definition (branches included), every template parses, and every template
 * reads only `initial`, `$env`, `$connections` and steps that run before it
 * (an agent's tool templates also read `args`, the model's arguments),
 * every agent tool's argument schema and every event wait's payload schema
 * compiles (its patterns on RE2: no backreference or lookaround), `$resume.<stepId>` names an event wait of the definition, an
 * HTTP body sent as `bodyType: base64` is a string, and a core.workflow
 * step's input given as a string is one template. (The workflows a
 * definition names are checked against the organization in
 * workflow-references.ts.) Issues carry the path of the
 * exact field (`steps.2.input.url`).
 */
export function checkDefinition(liquid: Liquid, definition: WorkflowDefinitionInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const ctx: CheckContext = { liquid, issues, eventWaits: eventWaitIds(definition.steps) };
  const seen = new Map<string, string>(); // stepId -> path where first defined
  const walk = (steps: StepDefinition[], path: string, before: Set<string>): Set<string> => {
    let available = new Set(before);
    steps.forEach((step, i) => {
      const at = `${path}.${i}`;
      const first = seen.get(step.stepId);
      if (first) issues.push({ path: `${at}.stepId`, message: `"${step.stepId}" is already the id of ${first}` });
      else seen.set(step.stepId, at);

      if (step.stepType === 'core.if') {
        checkTemplate(ctx, `{% if ${step.input.condition} %}{% endif %}`, `${at}.input.condition`, available);
        // A step inside a branch may read steps before the if; steps after it may read either branch (absent when not taken).
        const inThen = walk(step.input.then, `${at}.input.then`, available);
        const inElse = walk(step.input.else ?? [], `${at}.input.else`, available);
        available = new Set([...available, ...inThen, ...inElse]);
      } else if (step.stepType === 'core.loop') {
        const { steps: body, items } = step.input as LoopInputDefinition;
        checkStrings(ctx, items, `${at}.input.items`, available);
        checkLoopBody(body, `${at}.input.steps`, issues);
        if (loopBodySize(body) > MAX_LOOP_BODY_STEPS) {
          issues.push({
            path: `${at}.input.steps`,
            message: `holds more than ${MAX_LOOP_BODY_STEPS} steps with its branches; a loop body holds at most ${MAX_LOOP_BODY_STEPS}`,
          });
        }
        // The body reads item and index, what came before the loop, and its own earlier steps; after the loop, only its output.
        walk(body, `${at}.input.steps`, new Set([...available, 'item', 'index']));
      } else if (step.stepType === 'core.wait') {
        const { onTimeout, ...rest } = step.input as WaitInputDefinition;
        // Only `until` is a template: an event's name and schema are taken as written.
        checkStrings(ctx, rest.until, `${at}.input.until`, available);
        if (rest.event?.schema) checkJsonSchema(rest.event.schema, `${at}.input.event.schema`, issues);
        // Like a branch: the timeout path reads what came before the wait; later steps may read it (absent when not taken).
        if (Array.isArray(onTimeout)) available = new Set([...available, ...walk(onTimeout, `${at}.input.onTimeout`, available)]);
      } else if (step.stepType === 'ai.agent') {
        const { tools, ...rest } = step.input as { tools: AgentToolDefinition[] };
        checkStrings(ctx, rest, `${at}.input`, available);
        tools.forEach((tool, t) => checkTool(ctx, tool, `${at}.input.tools.${t}`, available));
      } else {
        checkStrings(ctx, step.input, `${at}.input`, available);
        if (step.stepType === 'core.http') checkBase64Body(step.input, `${at}.input`, issues);
        if (step.stepType === 'core.workflow') checkChildInput(step.input, `${at}.input.input`, issues);
      }
      available.add(step.stepId);
    });
    return available;
  };
  walk(definition.steps, 'steps', new Set());
  return issues;
}

/** A tool's templates (its request, its table name) read `args` too; its description and argument schema are not templates. */
function checkTool(ctx: CheckContext, tool: AgentToolDefinition, path: string, available: Set<string>): void {
  const withArgs = new Set([...available, 'args']);
  if (tool.type === 'http') {
    checkStrings(ctx, tool.request, `${path}.request`, withArgs);
    checkBase64Body(tool.request, `${path}.request`, ctx.issues);
  }
  if (tool.type === 'data-store') checkStrings(ctx, tool.tableName, `${path}.tableName`, withArgs);
  if (tool.type !== 'data-store' && tool.parameters) checkJsonSchema(tool.parameters, `${path}.parameters`, ctx.issues);
}

/** The schema compiles as runs will compile it: each pattern RE2 cannot run is refused at its own field. */
function checkJsonSchema(schema: Record<string, unknown>, path: string, issues: FieldIssue[]): void {
  issues.push(...schemaIssues(schema, path));
}

/** What every check of one definition shares. */
interface CheckContext {
  liquid: Liquid;
  issues: FieldIssue[];
  /** Ids of the definition's `core.wait` steps that wait for an event, wherever they are: what `$resume.<stepId>` may name. */
  eventWaits: Set<string>;
}

/** The ids of event waits anywhere in the steps (branches and timeout paths included). */
function eventWaitIds(steps: StepDefinition[], into = new Set<string>()): Set<string> {
  for (const step of steps) {
    if (step.stepType === 'core.wait') {
      const input = step.input as WaitInputDefinition;
      if (input.event) into.add(step.stepId);
      if (Array.isArray(input.onTimeout)) eventWaitIds(input.onTimeout, into);
    } else if (step.stepType === 'core.if') {
      eventWaitIds(step.input.then, into);
      eventWaitIds(step.input.else ?? [], into);
    }
  }
  return into;
}

/** A base64 body is text (a template such as `{{ report.bodyBase64 }}`, or base64 itself); whether it decodes is known when it renders. */
function checkBase64Body(input: { body?: unknown; bodyType?: string }, path: string, issues: FieldIssue[]): void {
  if (input.bodyType === 'base64' && input.body !== undefined && typeof input.body !== 'string') {
    issues.push({ path: `${path}.body`, message: 'must be a string with bodyType base64: base64 text, or a template such as {{ report.bodyBase64 }}' });
  }
}

/** Steps in a loop body, every branch counted: each has its own place among an item's records (LOOP_SUB_SEQ_SPAN apart). */
function loopBodySize(steps: StepDefinition[]): number {
  return steps.reduce((n, step) => n + 1 + (step.stepType === 'core.if' ? loopBodySize(step.input.then) + loopBodySize(step.input.else ?? []) : 0), 0);
}

/** What a loop body may hold, branches included: steps whose records fit under the loop's, per item. */
function checkLoopBody(steps: StepDefinition[], path: string, issues: FieldIssue[]): void {
  const allowed = new Set<string>(LOOP_BODY_STEP_TYPES);
  steps.forEach((step, i) => {
    if (!allowed.has(step.stepType)) {
      issues.push({
        path: `${path}.${i}.stepType`,
        message: `${step.stepType} cannot run inside a loop; a loop body holds ${LOOP_BODY_STEP_TYPES.join(', ')}`,
      });
    } else if (step.stepType === 'core.if') {
      checkLoopBody(step.input.then, `${path}.${i}.input.then`, issues);
      checkLoopBody(step.input.else ?? [], `${path}.${i}.input.else`, issues);
    }
  });
}

/** A core.workflow step's `input` given as a string is one `{{ }}` expression yielding the object (text would not be one). */
function checkChildInput(input: { input?: unknown }, path: string, issues: FieldIssue[]): void {
  if (typeof input.input === 'string' && !/^\s*{{[\s\S]*}}\s*$/.test(input.input)) {
    issues.push({ path, message: 'must be an object, or one template such as {{ fetch.body }} yielding an object' });
  }
}

function checkStrings(ctx: CheckContext, value: unknown, path: string, available: Set<string>): void {
  if (typeof value === 'string') {
    if (isTemplate(value)) checkTemplate(ctx, value, path, available);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkStrings(ctx, item, `${path}.${i}`, available));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkStrings(ctx, item, `${path}.${key}`, available);
  }
}

function checkTemplate(ctx: CheckContext, template: string, path: string, available: Set<string>): void {
  const { liquid, issues } = ctx;
  const { error, references } = analyzeTemplate(liquid, template);
  if (error) {
    issues.push({ path, message: error });
    return;
  }
  const reported = new Set<string>();
  for (const [root, first] of references) {
    const name = String(root);
    // A resume link may be read before its wait (to send it out) or after; it must be one of an event wait.
    if (name === '$resume' && !(typeof first === 'string' && ctx.eventWaits.has(first)) && !reported.has(`$resume.${String(first)}`)) {
      reported.add(`$resume.${String(first)}`);
      issues.push({
        path,
        message:
          typeof first === 'string'
            ? `reads $resume.${first}, but no core.wait step with an event has the id "${first}"`
            : 'reads $resume without naming a wait step: write $resume.<stepId>',
      });
    }
    if (ROOTS.has(name) || available.has(name) || reported.has(name)) continue;
    reported.add(name);
    const also = available.has('args') ? ', args' : '';
    issues.push({ path, message: `reads "${name}", which is not initial, $env, $connections${also} or a step that runs before this one` });
  }
}
