import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Permission } from '../auth/roles';
import { AppError, ForbiddenError } from '../errors/errors';
import { ErrorBody } from '../openapi/registry';
import type { AuthContext } from './request-context';
import { inRouteSpan } from '../observability/trace-context';
import { assertSafeInput } from './json-guard';
import { parseOrThrow } from './validation';

type AnyObject = z.ZodObject | z.ZodPipe;
type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<B, P, Q> {
  body: B;
  params: P;
  query: Q;
  auth: AuthContext;
}

/** What a handler returns; `undefined` means it wrote the response itself (streams). */
export type RouteResult = { status: number; body: unknown } | undefined;

export interface RouteSpec<B extends z.ZodType | undefined, P extends AnyObject | undefined, Q extends AnyObject | undefined> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path (`/connections/:id`); the OpenAPI path is derived from it. */
  path: string;
  summary: string;
  tags: string[];
  /** Omitted: the route is public. `null`: any authenticated member may call it. */
  permission?: Permission | null;
  /** A public route that also reads a token when one is sent (`auth` is then set; otherwise it is undefined). */
  optionalAuthentication?: boolean;
  body?: B;
  /** A JSON body limit of this route's own (`'6mb'`), above BODY_LIMIT, for the few routes whose input is a document. */
  bodyLimit?: string;
  /**
   * The handler answers every JSON document itself, bounded, stores nothing
   * of it, and is documented to answer 200 (POST /dashboards/validate): the
   * input guard (json-guard.ts) does not refuse its body.
   */
  answersAnyJson?: true;
  /**
   * The handler reads the request stream itself (file uploads): no JSON
   * parsing, no size limit but the handler's own. Documents what it takes.
   */
  rawBody?: { contentTypes: string[]; description: string };
  params?: P;
  query?: Q;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  handler: (input: RouteInput<Infer<B>, Infer<P>, Infer<Q>>, req: Request, res: Response) => Promise<RouteResult>;
}

export interface RouteContext {
  router: Router;
  registry: OpenAPIRegistry;
  authenticate: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  authenticateIfPresent: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /** Parses JSON bodies; only routes with a `body` schema use it, after authentication. */
  jsonBody: RequestHandler;
  /** The same parser with a route's own `bodyLimit`. */
  jsonBodyWithLimit: (limit: string) => RequestHandler;
  /** The parser without the input guard, for routes that answer any JSON themselves (RouteSpec.answersAnyJson). */
  unguardedJsonBody: RequestHandler;
}

const ERROR_STATUSES: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing or invalid access token',
  403: 'Missing permission, or no access to the active organization',
  404: 'Not found in the active organization',
};

/**
 * Declares one route: it authenticates, checks the permission, validates
 * params, query and body against the zod schemas, then calls the handler;
 * the same schemas document the route in the OpenAPI registry.
 */
export function defineRoute<
  B extends z.ZodType | undefined = undefined,
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
>(ctx: RouteContext, spec: RouteSpec<B, P, Q>): void {
  const authenticated = spec.permission !== undefined;
  registerOpenApi(ctx.registry, spec, authenticated);

  // Authorized before the body is read: a caller without the permission never gets to upload.
  const authorize: RequestHandler = (req, _res, next) => {
    if (spec.permission && !req.auth!.permissions.has(spec.permission)) {
      throw new ForbiddenError(`This action needs the ${spec.permission} permission`, 'missing_permission');
    }
    next();
  };
  const run = async (req: Request, res: Response) => {
    if (spec.body && req.is('application/json') === false) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as application/json');
    }
    assertSafeInput(req.params, 'params');
    assertSafeInput(req.query, 'query');
    const params = spec.params ? parseOrThrow(spec.params, req.params, 'params') : undefined;
    const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : undefined;
    const body = spec.body ? parseOrThrow(spec.body, req.body ?? {}, 'body') : undefined;
    const input = { body, params, query, auth: req.auth! } as RouteInput<Infer<B>, Infer<P>, Infer<Q>>;
    const result = await inRouteSpan(spec.method.toUpperCase(), spec.path, req.auth?.organizationId, () => spec.handler(input, req, res));
    if (result) res.status(result.status).json(result.body);
  };
  const identify = authenticated ? [ctx.authenticate, authorize] : spec.optionalAuthentication ? [ctx.authenticateIfPresent] : [];
  const parseBody = spec.answersAnyJson ? ctx.unguardedJsonBody : spec.bodyLimit ? ctx.jsonBodyWithLimit(spec.bodyLimit) : ctx.jsonBody;
  const chain = [...identify, ...(spec.body ? [parseBody] : []), run];
  ctx.router[spec.method](spec.path, ...chain);
}

function registerOpenApi<B extends z.ZodType | undefined, P extends AnyObject | undefined, Q extends AnyObject | undefined>(
  registry: OpenAPIRegistry,
  spec: RouteSpec<B, P, Q>,
  authenticated: boolean,
): void {
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] = {
      description: r.description,
      content: r.schema ? { [r.contentType ?? 'application/json']: { schema: r.schema } } : undefined,
    };
  }
  const errorStatuses = [400, ...(authenticated || spec.optionalAuthentication ? [401] : []), ...(spec.permission ? [403] : []), ...(spec.params ? [404] : [])];
  for (const status of errorStatuses) {
    responses[status] ??= { description: ERROR_STATUSES[status], content: { 'application/json': { schema: ErrorBody } } };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path.replace(/:([A-Za-z_]+)/g, '{$1}'),
    summary: spec.summary,
    description: spec.permission ? `Permission: \`${spec.permission}\`.` : undefined,
    tags: spec.tags,
    // `{}` first: the token is optional.
    security: authenticated
      ? [{ accessToken: [] }, { consoleSession: [] }]
      : spec.optionalAuthentication
        ? [{}, { accessToken: [] }, { consoleSession: [] }]
        : [],
    request: {
      params: spec.params,
      query: spec.query,
      body: spec.body
        ? { content: { 'application/json': { schema: spec.body } } }
        : spec.rawBody
          ? {
              description: spec.rawBody.description,
              content: Object.fromEntries(spec.rawBody.contentTypes.map((t) => [t, { schema: { type: 'string' as const } }])),
            }
          : undefined,
    },
    responses,
  });
}
