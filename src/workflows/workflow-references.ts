import type { FieldIssue } from '../errors/errors';
import type { AgentToolDefinition, StepDefinition, WorkflowDefinitionInput } from './definition.schemas';
import type { CurrentWorkflow } from './workflows.repository';

/** A workflow named by a definition, and the path of the field naming it. */
interface Reference {
  name: string;
  path: string;
  kind: 'step' | 'tool' | 'errorWorkflow';
}

/** Following core.workflow steps through other definitions stops after this many workflows: a cycle check, not a crawl. */
const MAX_FOLLOWED = 200;

/**
 * The workflows a definition names, checked when it is saved: each
 * `core.workflow` step's, each agent `workflow` tool's and `errorWorkflow`
 * must be a workflow of the organization, or (steps and tools) the one being
 * saved; the error workflow must not be the workflow itself. Cycles of
 * `core.workflow` steps are refused, following the current definitions of
 * the named workflows (the one being saved as it will be), naming the
 * chain. Agent tools are not followed: the model decides at run time whether
 * to call one, and the nesting bound (MAX_NESTING_DEPTH) stops a workflow
 * calling itself through its agent. `savedId`: the workflow being updated
 * (none on create).
 */
export async function checkReferences(
  findByName: (name: string) => Promise<CurrentWorkflow | null>,
  definition: WorkflowDefinitionInput,
  savedId?: string,
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const found = new Map<string, Promise<CurrentWorkflow | null>>();
  const find = (name: string) => {
    let loading = found.get(name);
    if (!loading) found.set(name, (loading = findByName(name)));
    return loading;
  };
  /** The saved definition under another name is itself (a rename); under its own name it is too. */
  const isSelf = async (name: string) => name === definition.name || (savedId !== undefined && (await find(name))?.workflow.id === savedId);

  for (const ref of referencesOf(definition)) {
    if (await isSelf(ref.name)) {
      if (ref.kind === 'errorWorkflow') issues.push({ path: ref.path, message: 'must name another workflow: a workflow is not its own error workflow' });
      continue;
    }
    if (!(await find(ref.name))) issues.push({ path: ref.path, message: `names "${ref.name}", which is not a workflow of this organization` });
  }
  if (issues.length) return issues;

  // Depth first over core.workflow steps from each of the saved definition's; a name on the current chain closes a cycle.
  let followed = 0;
  const stepsOf = async (name: string): Promise<StepDefinition[]> => {
    if (await isSelf(name)) return definition.steps;
    followed += 1;
    return ((await find(name))?.version.definition.steps as StepDefinition[] | undefined) ?? [];
  };
  const cycleFrom = async (name: string, chain: string[], seen: Set<string>): Promise<string[] | undefined> => {
    const self = await isSelf(name);
    const key = self ? definition.name : name;
    if (chain.includes(key)) return [...chain, key];
    if (seen.has(key) || followed >= MAX_FOLLOWED) return undefined;
    seen.add(key);
    for (const ref of referencesOf({ steps: await stepsOf(name) }).filter((r) => r.kind === 'step')) {
      const cycle = await cycleFrom(ref.name, [...chain, key], seen);
      if (cycle) return cycle;
    }
    return undefined;
  };
  for (const ref of referencesOf(definition).filter((r) => r.kind === 'step')) {
    const cycle = await cycleFrom(ref.name, [definition.name], new Set());
    if (cycle) issues.push({ path: ref.path, message: `forms a cycle of core.workflow steps: ${cycle.join(' → ')}` });
  }
  return issues;
}

/** The workflows a definition names, branches included, in definition order. */
function referencesOf(definition: { steps: StepDefinition[]; errorWorkflow?: string }): Reference[] {
  const refs: Reference[] = [];
  const walk = (steps: StepDefinition[], path: string) =>
    steps.forEach((step, i) => {
      const at = `${path}.${i}`;
      if (step.stepType === 'core.workflow') refs.push({ name: step.input.workflow, path: `${at}.input.workflow`, kind: 'step' });
      if (step.stepType === 'core.if') {
        walk(step.input.then ?? [], `${at}.input.then`);
        walk(step.input.else ?? [], `${at}.input.else`);
      }
      if (step.stepType === 'ai.agent') {
        (step.input.tools as AgentToolDefinition[]).forEach((tool, t) => {
          if (tool.type === 'workflow') refs.push({ name: tool.workflow, path: `${at}.input.tools.${t}.workflow`, kind: 'tool' });
        });
      }
    });
  walk(definition.steps ?? [], 'steps');
  if (definition.errorWorkflow) refs.push({ name: definition.errorWorkflow, path: 'errorWorkflow', kind: 'errorWorkflow' });
  return refs;
}
