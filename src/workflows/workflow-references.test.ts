import type { FieldIssue } from '../errors/errors';
import { WorkflowDefinition } from './definition.schemas';
import { checkReferences } from './workflow-references';
import type { CurrentWorkflow } from './workflows.repository';

/** The organization's workflows by name, each with its current definition's steps; ids are `id-<name>`. */
function organization(workflows: Record<string, unknown[]>) {
  return async (name: string): Promise<CurrentWorkflow | null> =>
    workflows[name]
      ? ({ workflow: { id: `id-${name}`, name }, version: { definition: { name, steps: workflows[name] } } } as unknown as CurrentWorkflow)
      : null;
}
const callStep = (stepId: string, workflow: string) => ({ stepId, stepType: 'core.workflow', input: { workflow } });
const set = (stepId: string) => ({ stepId, stepType: 'core.set', input: { values: { a: 1 } } });
const workflowTool = (workflow: string) => ({
  stepId: 'agent',
  stepType: 'ai.agent',
  input: {
    provider: { provider: 'openai', connection: 'c', model: 'm' },
    user_prompt: 'p',
    tools: [{ type: 'workflow', name: 't', description: 'd', workflow }],
  },
});
const check = (definition: Record<string, unknown>, workflows: Record<string, unknown[]>, savedId?: string): Promise<FieldIssue[]> =>
  checkReferences(organization(workflows), WorkflowDefinition.parse({ name: 'main', ...definition }), savedId);

describe('checkReferences', () => {
  test('named workflows that exist pass; a missing one is named with the path of its field, branches and tools included', async () => {
    expect(await check({ steps: [callStep('a', 'child')], errorWorkflow: 'alert' }, { child: [set('x')], alert: [set('y')] })).toEqual([]);
    const branch = { stepId: 'maybe', stepType: 'core.if', input: { condition: 'true', then: [callStep('b', 'gone')] } };
    expect(await check({ steps: [branch, workflowTool('nowhere')], errorWorkflow: 'absent' }, {})).toEqual([
      { path: 'steps.0.input.then.0.input.workflow', message: expect.stringContaining('"gone"') },
      { path: 'steps.1.input.tools.0.workflow', message: expect.stringContaining('"nowhere"') },
      { path: 'errorWorkflow', message: expect.stringContaining('"absent"') },
    ]);
  });

  test('a workflow is not its own error workflow, under its name or (on update) under its old name', async () => {
    expect(await check({ steps: [set('x')], errorWorkflow: 'main' }, {})).toEqual([
      { path: 'errorWorkflow', message: expect.stringContaining('another workflow') },
    ]);
    expect(await check({ steps: [set('x')], errorWorkflow: 'old-name' }, { 'old-name': [set('x')] }, 'id-old-name')).toEqual([
      { path: 'errorWorkflow', message: expect.stringContaining('another workflow') },
    ]);
  });

  test('core.workflow cycles are refused naming the chain, through the saved definition as it will be', async () => {
    expect(await check({ steps: [callStep('self', 'main')] }, {})).toEqual([
      { path: 'steps.0.input.workflow', message: 'forms a cycle of core.workflow steps: main → main' },
    ]);
    // b calls main (its current definition): saving main to call b closes main → b → main.
    expect(await check({ steps: [set('x'), callStep('toB', 'b')] }, { b: [callStep('back', 'main')] })).toEqual([
      { path: 'steps.1.input.workflow', message: 'forms a cycle of core.workflow steps: main → b → main' },
    ]);
    expect(await check({ steps: [callStep('toB', 'b')] }, { b: [callStep('c', 'c')], c: [callStep('b', 'b')] })).toEqual([
      { path: 'steps.0.input.workflow', message: 'forms a cycle of core.workflow steps: main → b → c → b' },
    ]);
    // A diamond is no cycle.
    expect(await check({ steps: [callStep('b', 'b'), callStep('c', 'c')] }, { b: [callStep('d', 'd')], c: [callStep('d', 'd')], d: [set('x')] })).toEqual([]);
  });

  test('agent workflow tools are not followed for cycles: a tool naming the workflow itself is accepted', async () => {
    expect(await check({ steps: [workflowTool('main')] }, {})).toEqual([]);
    expect(await check({ steps: [callStep('toB', 'b')] }, { b: [workflowTool('main')] })).toEqual([]);
  });
});
