import Ajv from 'ajv';
import type { Liquid } from 'liquidjs';
import type { FieldIssue } from '../errors/errors';
import { analyzeTemplate } from '../templates/template-analysis';
import { isTemplate } from '../templates/template-engine';
import type { AgentToolDefinition, StepDefinition, WorkflowDefinitionInput } from './definition.schemas';

const ROOTS = new Set(['initial', '$env', '$connections']);

/**
 * What the schema cannot see: every step id unique across the whole
 * definition (branches included), every template parses, and every template
 * reads only `initial`, `$env`, `$connections` and steps that run before it
 * (an agent's tool templates also read `args`, the model's arguments),
 * every agent tool's argument schema compiles, an HTTP body sent as
 * `bodyType: base64` is a string, and a core.workflow step's input given as
 * a string is one template. (The workflows a definition names are checked
 * against the organization in workflow-references.ts.) Issues carry the path of the
 * exact field (`steps.2.input.url`).
 */
export function checkDefinition(liquid: Liquid, definition: WorkflowDefinitionInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Map<string, string>(); // stepId -> path where first defined
  const walk = (steps: StepDefinition[], path: string, before: Set<string>): Set<string> => {
    let available = new Set(before);
    steps.forEach((step, i) => {
      const at = `${path}.${i}`;
      const first = seen.get(step.stepId);
      if (first) issues.push({ path: `${at}.stepId`, message: `"${step.stepId}" is already the id of ${first}` });
      else seen.set(step.stepId, at);

      if (step.stepType === 'core.if') {
        checkTemplate(liquid, `{% if ${step.input.condition} %}{% endif %}`, `${at}.input.condition`, available, issues);
        // A step inside a branch may read steps before the if; steps after it may read either branch (absent when not taken).
        const inThen = walk(step.input.then, `${at}.input.then`, available);
        const inElse = walk(step.input.else ?? [], `${at}.input.else`, available);
        available = new Set([...available, ...inThen, ...inElse]);
      } else if (step.stepType === 'ai.agent') {
        const { tools, ...rest } = step.input as { tools: AgentToolDefinition[] };
        checkStrings(liquid, rest, `${at}.input`, available, issues);
        tools.forEach((tool, t) => checkTool(liquid, tool, `${at}.input.tools.${t}`, available, issues));
      } else {
        checkStrings(liquid, step.input, `${at}.input`, available, issues);
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
function checkTool(liquid: Liquid, tool: AgentToolDefinition, path: string, available: Set<string>, issues: FieldIssue[]): void {
  const withArgs = new Set([...available, 'args']);
  if (tool.type === 'http') {
    checkStrings(liquid, tool.request, `${path}.request`, withArgs, issues);
    checkBase64Body(tool.request, `${path}.request`, issues);
  }
  if (tool.type === 'data-store') checkStrings(liquid, tool.tableName, `${path}.tableName`, withArgs, issues);
  if (tool.type !== 'data-store' && tool.parameters) {
    try {
      // A fresh Ajv: a shared one would keep every schema ever checked.
      new Ajv({ strict: false }).compile(tool.parameters);
    } catch (err) {
      issues.push({ path: `${path}.parameters`, message: `is not a valid JSON Schema: ${(err as Error).message}` });
    }
  }
}

/** A base64 body is text (a template such as `{{ report.bodyBase64 }}`, or base64 itself); whether it decodes is known when it renders. */
function checkBase64Body(input: { body?: unknown; bodyType?: string }, path: string, issues: FieldIssue[]): void {
  if (input.bodyType === 'base64' && input.body !== undefined && typeof input.body !== 'string') {
    issues.push({ path: `${path}.body`, message: 'must be a string with bodyType base64: base64 text, or a template such as {{ report.bodyBase64 }}' });
  }
}

/** A core.workflow step's `input` given as a string is one `{{ }}` expression yielding the object (text would not be one). */
function checkChildInput(input: { input?: unknown }, path: string, issues: FieldIssue[]): void {
  if (typeof input.input === 'string' && !/^\s*{{[\s\S]*}}\s*$/.test(input.input)) {
    issues.push({ path, message: 'must be an object, or one template such as {{ fetch.body }} yielding an object' });
  }
}

function checkStrings(liquid: Liquid, value: unknown, path: string, available: Set<string>, issues: FieldIssue[]): void {
  if (typeof value === 'string') {
    if (isTemplate(value)) checkTemplate(liquid, value, path, available, issues);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkStrings(liquid, item, `${path}.${i}`, available, issues));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkStrings(liquid, item, `${path}.${key}`, available, issues);
  }
}

function checkTemplate(liquid: Liquid, template: string, path: string, available: Set<string>, issues: FieldIssue[]): void {
  const { error, references } = analyzeTemplate(liquid, template);
  if (error) {
    issues.push({ path, message: error });
    return;
  }
  const reported = new Set<string>();
  for (const [root] of references) {
    const name = String(root);
    if (ROOTS.has(name) || available.has(name) || reported.has(name)) continue;
    reported.add(name);
    const also = available.has('args') ? ', args' : '';
    issues.push({ path, message: `reads "${name}", which is not initial, $env, $connections${also} or a step that runs before this one` });
  }
}
