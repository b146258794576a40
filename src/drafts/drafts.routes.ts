import type { ExecutionsService } from '../executions/executions.service';
import { ExecutionSchema, StartedSchema } from '../executions/executions.schemas';
import { runAnswers } from '../executions/run-answers';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { presentWorkflow } from '../workflows/workflows.presenter';
import { WorkflowIdParams, WorkflowSchema } from '../workflows/workflows.schemas';
import { DraftSchema, DraftStepParams, DraftTestBody, PinBody, PublishDraftBody, SaveDraftBody, StepTestBody } from './drafts.schemas';
import type { DraftRow } from './drafts.repository';
import type { DraftsService } from './drafts.service';

const tags = ['Workflow drafts'];

const presentDraft = (d: DraftRow & { others: Array<{ email: string; updatedAt: Date }> }) => ({
  workflowId: d.workflowId,
  baseVersion: d.baseVersion,
  definition: d.definition,
  pins: d.pins,
  others: d.others.map((o) => ({ email: o.email, updatedAt: o.updatedAt.toISOString() })),
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

/**
 * A person's draft of a workflow (docs/workflows.md, Drafts): saved as they
 * edit, tested step by step or whole without publishing, published as the
 * next version. Each person has their own; only `workflows:admin` edits.
 */
export function registerDraftRoutes(ctx: RouteContext, service: DraftsService, executions: ExecutionsService): void {
  const { presentRun } = runAnswers(executions);
  const draft = { 200: { description: 'The draft', schema: DraftSchema } };

  defineRoute(ctx, {
    method: 'get',
    path: '/workflows/:id/draft',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    summary: "The caller's draft of the workflow (404 when they have none), with who else has one",
    responses: draft,
    handler: async ({ auth, params }) => ({ status: 200, body: presentDraft(await service.get(auth.organizationId, auth.userId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/workflows/:id/draft',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: SaveDraftBody,
    summary: "Saves the caller's draft (created at the first save; pins kept). Not checked: a draft may be unfinished",
    responses: draft,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentDraft(await service.save(auth.organizationId, auth.userId, params.id, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/workflows/:id/draft',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    summary: "Discards the caller's draft and its pins",
    responses: { 200: { description: 'The discarded draft', schema: DraftSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: presentDraft(await service.discard(auth.organizationId, auth.userId, params.id)) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/draft/publish',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: PublishDraftBody,
    summary:
      'Checks the draft as PUT /workflows/{id} does and stores it as the next version; the draft is then gone. 409 draft_outdated when a newer version was published since its base, unless force',
    responses: { 200: { description: 'The workflow with its new version', schema: WorkflowSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentWorkflow(await service.publish(auth.organizationId, auth.userId, params.id, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/workflows/:id/draft/pins/:stepId',
    permission: 'workflows:admin',
    tags,
    params: DraftStepParams,
    body: PinBody,
    summary: "Pins a step's output in the draft (given, or as a run recorded it): step tests take it instead of running the step; runs of a version never do",
    responses: draft,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentDraft(await service.pin(auth.organizationId, auth.userId, params.id, params.stepId, body)),
    }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/workflows/:id/draft/pins/:stepId',
    permission: 'workflows:admin',
    tags,
    params: DraftStepParams,
    summary: "Removes a step's pin",
    responses: draft,
    handler: async ({ auth, params }) => ({
      status: 200,
      body: presentDraft(await service.unpin(auth.organizationId, auth.userId, params.id, params.stepId)),
    }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/draft/test',
    permission: 'workflows:admin',
    tags,
    params: WorkflowIdParams,
    body: DraftTestBody,
    summary: 'Test-runs the whole draft (checked as a publish would) with its `initial` sample or a given one, without publishing it',
    responses: {
      200: { description: 'The run ended: the execution with its steps (marked draft)', schema: ExecutionSchema },
      202: { description: 'Still running or waiting', schema: StartedSchema },
    },
    handler: async ({ auth, params, body }) => presentRun(await service.test(auth.organizationId, auth.userId, params.id, body)),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/workflows/:id/draft/steps/:stepId/test',
    permission: 'workflows:admin',
    tags,
    params: DraftStepParams,
    body: StepTestBody,
    summary:
      'Runs one step of the draft through Temporal with the inputs it would see: the steps before it take their pinned outputs, else those run `executionId` recorded, and are not run. `missing` names earlier steps that had neither',
    responses: {
      200: {
        description: "The test's execution (marked draft): the given steps, then the step's own record",
        schema: ExecutionSchema.extend({ missing: z.array(z.string()) }),
      },
      202: { description: 'Still running or waiting', schema: StartedSchema.extend({ missing: z.array(z.string()) }) },
    },
    handler: async ({ auth, params, body }) => {
      const { missing, ...run } = await service.testStep(auth.organizationId, auth.userId, params.id, params.stepId, body);
      const answer = presentRun(run);
      return { status: answer.status, body: { ...answer.body, missing } };
    },
  });
}
