import { AppError } from '../../src/errors/errors';
import { compileOrganizationSchema, type SchemaCheck } from '../../src/lib/organization-ajv';
import type { AgentToolDefinition } from '../../src/workflows/definition.schemas';

/** The arguments of a data store tool: fixed by its operation. */
const DATA_STORE_ARGUMENTS = {
  get: { type: 'object', properties: { key: { type: 'string', minLength: 1, description: 'The record key' } }, required: ['key'], additionalProperties: false },
  set: {
    type: 'object',
    properties: { key: { type: 'string', minLength: 1, description: 'The record key' }, value: { type: 'object', description: 'The record (a JSON object)' } },
    required: ['key', 'value'],
    additionalProperties: false,
  },
} as const;

/** The JSON Schema a tool's arguments must match (the model is offered the same one). */
export function argumentSchema(tool: AgentToolDefinition): Record<string, unknown> {
  if (tool.type === 'data-store') return DATA_STORE_ARGUMENTS[tool.operation];
  return tool.parameters ?? { type: 'object' };
}

/** Why the arguments do not fit the tool's schema, in words the model can act on; undefined when they fit. */
export function argumentProblems(tool: AgentToolDefinition, args: unknown): string | undefined {
  let validate: SchemaCheck;
  try {
    validate = compileOrganizationSchema(argumentSchema(tool), { allErrors: true });
  } catch (err) {
    // Saved before a rule it breaks (a pattern RE2 cannot run): the definition's fault, not the model's.
    throw new AppError(400, 'invalid_definition', `The argument schema of tool "${tool.name}" cannot be checked: ${(err as Error).message}`);
  }
  if (validate(args)) return undefined;
  const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`);
  return `The arguments do not match the tool's schema: ${problems.join('; ')}`;
}
