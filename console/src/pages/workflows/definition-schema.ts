import { get } from '../../api/client';

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

const REF = '#/components/schemas/';

/** Rewrites every component `$ref` to point into the schema's own `definitions`. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith(REF) ? `#/definitions/${v.slice(REF.length)}` : rebase(v),
      ]),
    );
  }
  return value;
}

/** `allOf` parts that are plain objects (SaveWorkflow is the definition plus `settings`) merged into one object schema. */
function flatten(schema: Schema, components: Record<string, Schema>): Schema {
  const parts = schema.allOf as Schema[] | undefined;
  if (!parts) return schema;
  const merged: Schema = { type: 'object', properties: {}, required: [], additionalProperties: false };
  for (const part of parts) {
    const resolved = typeof part.$ref === 'string' && part.$ref.startsWith(REF) ? components[part.$ref.slice(REF.length)] : part;
    Object.assign(merged.properties as Schema, (resolved?.properties as Schema) ?? {});
    (merged.required as string[]).push(...((resolved?.required as string[]) ?? []));
    if (resolved?.description && !merged.description) merged.description = resolved.description;
  }
  return merged;
}

/**
 * The JSON Schema of a workflow definition as the editor completes and checks
 * it: the request body of PUT /workflows/{id} in the API's OpenAPI document,
 * made self-contained (its components as `definitions`).
 */
export async function loadDefinitionSchema(signal?: AbortSignal): Promise<Schema> {
  const document = await get<OpenApiDocument>('/openapi.json', { signal });
  const components = document.components.schemas;
  let body = document.paths['/workflows/{id}']?.put?.requestBody?.content?.['application/json']?.schema ?? { $ref: `${REF}SaveWorkflow` };
  if (typeof body.$ref === 'string' && body.$ref.startsWith(REF)) body = components[body.$ref.slice(REF.length)] ?? {};
  return rebase({ $schema: 'http://json-schema.org/draft-07/schema#', ...flatten(body, components), definitions: components }) as Schema;
}
