import type { JSONSchema7 } from 'ai';
import { OUTPUT_FIELD } from '../../src/workflows/definition.schemas';

/** A JSON Schema for the object an `ai.llm-call` step in `structured_output` mode asks the model for. */
export interface OutputJsonSchema extends JSONSchema7 {
  type: 'object';
  properties: Record<string, JSONSchema7>;
  required: string[];
  additionalProperties: false;
}

/**
 * Converts a step's `output_schema` (field name to `"<type>: <description>"`,
 * type one of string, string[], number, number[], integer, boolean) into a
 * JSON Schema. Every field is required and no other field is allowed: that is
 * what OpenAI's strict structured outputs demand, and what lets later steps
 * read `{{ step.object.field }}` without checking for absence.
 * Throws (naming the field, not its value) when a value is malformed.
 */
export function outputSchemaToJsonSchema(outputSchema: Record<string, string>): OutputJsonSchema {
  const fields = Object.entries(outputSchema);
  if (fields.length === 0) throw new Error('output_schema needs at least one field');
  const properties = Object.fromEntries(fields.map(([name, spec]) => [name, fieldSchema(name, spec)]));
  return { type: 'object', properties, required: fields.map(([name]) => name), additionalProperties: false };
}

function fieldSchema(name: string, spec: string): JSONSchema7 {
  // As a key of `properties` it would be looked up on the prototype by validators, so `required` could never fail.
  if (name === '__proto__') throw new Error('output_schema field "__proto__" is not allowed');
  const match = typeof spec === 'string' ? OUTPUT_FIELD.exec(spec) : null;
  if (!match) {
    throw new Error(`output_schema field "${name}" must read "<type>: <description>" with type string, string[], number, number[], integer or boolean`);
  }
  const [, type, rawDescription] = match;
  const description = rawDescription.trim();
  // The description is the model's only hint about what belongs in the field, so it stays next to the type.
  const withDescription = (schema: JSONSchema7): JSONSchema7 => (description ? { ...schema, description } : schema);
  if (type.endsWith('[]')) {
    return withDescription({ type: 'array', items: { type: type.slice(0, -2) as 'string' | 'number' } });
  }
  return withDescription({ type: type as 'string' | 'number' | 'integer' | 'boolean' });
}
