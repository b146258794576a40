/** The subset of JSON Schema draft-07 the connection type catalog uses. */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minProperties?: number;
  writeOnly?: boolean;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  discriminator?: { propertyName: string };
}

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** A secret string: required to be non-empty and never readable except through the decrypted-config endpoint. */
export const secret = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 20_000, writeOnly: true, description });
export const text = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 2_000,
  description,
  ...extra,
});
export const url = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({
  type: 'string',
  format: 'uri',
  maxLength: 2_000,
  description,
  ...extra,
});
export const port = (defaultPort: number): JsonSchema => ({ type: 'integer', minimum: 1, maximum: 65535, default: defaultPort });

/** An object schema with no additional properties. */
export function strictObject(title: string, properties: Record<string, JsonSchema>, required: string[], extra: Partial<JsonSchema> = {}): JsonSchema {
  return { $schema: DRAFT_07, title, type: 'object', additionalProperties: false, properties, required, ...extra };
}

/**
 * A multi-variant config: a union keyed on the `variant` field (or the
 * `discriminant` a type names instead, such as webhook-signing's `scheme`).
 * Each branch pins it to one value, so the published schema says which fields go with which.
 */
export function variants(
  title: string,
  branches: Record<string, { properties: Record<string, JsonSchema>; required: string[] }>,
  discriminant = 'variant',
): JsonSchema {
  return {
    $schema: DRAFT_07,
    title,
    type: 'object',
    required: [discriminant],
    discriminator: { propertyName: discriminant },
    oneOf: Object.entries(branches).map(([variant, b]) => ({
      type: 'object',
      additionalProperties: false,
      properties: { [discriminant]: { const: variant }, ...b.properties },
      required: [discriminant, ...b.required],
    })),
  };
}
