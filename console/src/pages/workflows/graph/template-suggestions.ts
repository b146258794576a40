import type { DefinitionStep, StepPath } from './definition-graph';
import { valueAt } from './definition-edit';

/**
 * What a template field of a step can read, for completion: `initial.…` from
 * the sample input, the steps that run before it with the fields their
 * outputs are known to have (a tested or pinned output when there is one,
 * else what the step type always answers), a loop body's `item` and `index`,
 * the environment's variable names and the organization's connection names.
 * Names only: no value of a variable or a connection is ever here.
 */

export interface TemplateContext {
  /** Outputs known per step id: pinned or from the last test of the step. */
  outputs?: ReadonlyMap<string, unknown>;
  envNames?: readonly string[];
  connectionNames?: readonly string[];
}

export interface Suggestion {
  /** The expression inserted between `{{ ` and ` }}`. */
  expression: string;
  /** Where it comes from: "sample input", "step fetch (pinned)", "environment"… */
  source: string;
}

const MAX_DEPTH = 3;
const MAX_PER_ROOT = 40;

/** `root`, and the paths into `value` below it (objects by key, arrays by their first element), a few levels deep. */
function paths(root: string, value: unknown, depth = 0, into: string[] = []): string[] {
  into.push(root);
  if (depth >= MAX_DEPTH || into.length >= MAX_PER_ROOT) return into;
  if (Array.isArray(value)) {
    if (value.length > 0) paths(`${root}[0]`, value[0], depth + 1, into);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (into.length >= MAX_PER_ROOT) break;
      paths(/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${root}.${key}` : `${root}["${key}"]`, v, depth + 1, into);
    }
  }
  return into;
}

/** What a step type's output always holds, when no output of the step is known. */
function typicalOutput(step: DefinitionStep): unknown {
  const input = (step.input ?? {}) as Record<string, unknown>;
  switch (step.stepType) {
    case 'core.http':
      return { status: 200, headers: {}, body: {}, text: '' };
    case 'core.set':
      return input.values && typeof input.values === 'object' ? input.values : {};
    case 'core.if':
      return { result: true, branch: 'then' };
    case 'core.loop':
      return { results: [], errors: [], count: 0 };
    case 'ai.llm-call': {
      const schema = (input.mode as { output_schema?: Record<string, unknown> } | undefined)?.output_schema ?? {};
      return { object: Object.fromEntries(Object.keys(schema).map((k) => [k, ''])) };
    }
    case 'ai.agent':
      return { text: '', object: {}, toolCalls: [], iterations: 0 };
    case 'core.workflow':
      return { executionId: '', answer: {} };
    case 'data-store.get':
      return { found: true, value: {}, record: {} };
    case 'data-store.set':
      return { key: '', created: true };
    default:
      return {};
  }
}

/** The steps that have run when the step at `path` starts: earlier ones in its list, and those before each list that holds it. */
export function stepsBefore(definition: unknown, path: StepPath): { steps: DefinitionStep[]; inLoop: boolean } {
  const steps: DefinitionStep[] = [];
  let inLoop = false;
  // Walk down the path: at each list, the items before the index ran; at a loop's body, item and index exist.
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (typeof key !== 'number') continue;
    const list = valueAt(definition, path.slice(0, i));
    if (!Array.isArray(list)) break;
    steps.push(...(list.slice(0, key) as DefinitionStep[]));
    const holder = path[i - 1] === 'steps' && i >= 3 ? (valueAt(definition, path.slice(0, i - 2)) as DefinitionStep | undefined) : undefined;
    if (holder?.stepType === 'core.loop') inLoop = true;
  }
  return { steps, inLoop };
}

/** Every expression a template of the step at `path` can read, in the order a person looks for them. */
export function templateSuggestions(definition: unknown, path: StepPath, context: TemplateContext = {}): Suggestion[] {
  const out: Suggestion[] = [];
  const initial = valueAt(definition, ['initial']);
  for (const p of paths('initial', initial ?? {})) out.push({ expression: p, source: 'sample input' });
  const { steps, inLoop } = stepsBefore(definition, path);
  if (inLoop) {
    out.push({ expression: 'item', source: 'the loop item' }, { expression: 'index', source: 'the loop item' });
  }
  for (const step of steps) {
    if (!step || typeof step.stepId !== 'string') continue;
    const known = context.outputs?.get(step.stepId);
    const source = known !== undefined ? `step ${step.stepId} (tested output)` : `step ${step.stepId}`;
    for (const p of paths(step.stepId, known ?? typicalOutput(step))) out.push({ expression: p, source });
  }
  for (const name of context.envNames ?? []) out.push({ expression: `$env.${name}`, source: 'environment' });
  for (const name of context.connectionNames ?? []) out.push({ expression: `$connections.${name}`, source: 'connection' });
  return out;
}
