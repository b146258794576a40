import type { components, paths } from './schema.gen';

/**
 * The console's window onto the generated API types (schema.gen.ts, made from the service's OpenAPI
 * document at build time): pages alias these rather than describe the API themselves, so reading a
 * field the API does not publish fails the console's typecheck.
 */

/** A component schema of the OpenAPI document, by name (`ApiSchema<'Workflow'>`). */
export type ApiSchema<Name extends keyof components['schemas']> = components['schemas'][Name];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body of an operation's answer (200 unless told), for routes whose answer is no named schema. */
export type ApiAnswer<Path extends keyof paths, M extends Method & keyof paths[Path], Status extends number = 200> = paths[Path][M] extends {
  responses: infer Responses;
}
  ? Status extends keyof Responses
    ? JsonBody<Responses[Status]>
    : never
  : never;
