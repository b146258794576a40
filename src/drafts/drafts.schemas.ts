import { z } from '../openapi/zod';
import { StepId } from '../workflows/definition.schemas';

/** The largest output a pin holds: pins are what later steps are tested against, not a store of results. */
export const MAX_PIN_BYTES = 256 * 1024;

const JsonObject = z.record(z.string(), z.unknown());
const EnvironmentName = z.string().min(1).openapi({ description: "Environment to run with instead of the workflow's default" });

export const DraftStepParams = z.object({ id: z.uuid({ message: 'must be a UUID' }), stepId: StepId });

export const SaveDraftBody = z
  .strictObject({
    definition: JsonObject.openapi({
      description: 'The definition being edited, kept as written; unfinished is fine: it is checked when tested or published',
    }),
    baseVersion: z.number().int().min(1).openapi({ description: 'The version the draft started from (publishing after a newer one needs force)' }),
  })
  .openapi('SaveDraft');

export const PublishDraftBody = z
  .strictObject({
    force: z.boolean().default(false).openapi({ description: "Publish even though a version newer than the draft's base was published since" }),
  })
  .openapi('PublishDraft');

export const PinBody = z
  .strictObject({
    output: z
      .unknown()
      .optional()
      .openapi({ description: `The output to pin, as given (at most ${MAX_PIN_BYTES} bytes)` }),
    executionId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'A run of this workflow (a test of the draft included) whose recorded output of the step is pinned' }),
  })
  .refine((b) => (b.output === undefined) !== (b.executionId === undefined), { message: 'give exactly one of output or executionId', path: [] })
  .openapi('PinOutput');

export const DraftTestBody = z
  .strictObject({
    initial: JsonObject.optional().openapi({ description: "Defaults to the draft's `initial` sample" }),
    environment: EnvironmentName.optional(),
  })
  .openapi('TestDraft');

export const StepTestBody = z
  .strictObject({
    executionId: z.string().min(1).max(100).optional().openapi({
      description: 'A run of this workflow whose recorded outputs the steps before this one take (their pins win); its input is the default `initial`',
    }),
    initial: JsonObject.optional().openapi({ description: "The run's `initial`: defaults to the run's input, else the draft's sample" }),
    environment: EnvironmentName.optional(),
  })
  .openapi('TestDraftStep');

const PinSchema = z
  .object({
    output: z.unknown(),
    from: z.union([z.object({ executionId: z.string() }), z.object({ given: z.literal(true) })]),
    pinnedAt: z.string(),
  })
  .openapi('Pin');

export const DraftSchema = z
  .object({
    workflowId: z.uuid(),
    baseVersion: z.number().int(),
    definition: JsonObject.openapi({ description: 'As last saved, key order kept' }),
    pins: z.record(z.string(), PinSchema).openapi({ description: 'Pinned outputs by step id: used by step tests, never by runs of a version' }),
    others: z
      .array(z.object({ email: z.string(), updatedAt: z.string() }))
      .openapi({ description: 'Other people with a draft of this workflow (each person edits their own), newest first' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Draft');
