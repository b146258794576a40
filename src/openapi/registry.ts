import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { SERVICE_NAME, SERVICE_VERSION } from '../config/service-identity';
import { z } from './zod';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_failed' }),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      requestId: z.string().optional(),
    }),
  })
  .openapi('Error');

/** Creates the registry that route definitions add themselves to. */
export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorBody);
  registry.registerComponent('securitySchemes', 'accessToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token (`fbt_…`). `X-Organization-Id` picks the active organization.',
  });
  registry.registerComponent('securitySchemes', 'consoleSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'flowbase_session',
    description: "The console's session (POST /session), standing for one access token. Writes also need the `X-CSRF-Token` header GET /session answers.",
  });
  return registry;
}

export function generateOpenApiDocument(registry: OpenAPIRegistry, serverUrl?: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: `${SERVICE_NAME} API`,
      version: SERVICE_VERSION,
      description:
        'Management API of the workflow automation service. Errors share one body shape (`Error`); ' + 'validation failures list field-level `details`.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : undefined,
  });
}
