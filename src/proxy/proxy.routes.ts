import type { Request, Response } from 'express';
import { defineRoute, type RouteContext } from '../http/route';
import { ErrorBody } from '../openapi/registry';
import { z } from '../openapi/zod';
import { ProxyQuery } from './proxy.schemas';
import type { MediaSink, ProxyService } from './proxy.service';

/** The response as the proxy's sink: started when the upstream answers; its signal fires if the caller leaves first. */
function responseSink(req: Request, res: Response): MediaSink {
  const left = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) left.abort();
  });
  return {
    signal: left.signal,
    // Express answers HEAD with the GET route.
    headOnly: req.method === 'HEAD',
    start: (status, headers) => {
      // setHeader, not set(): Express would add a charset to text content types, and the type is mirrored as sent.
      res.status(status);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      return res;
    },
  };
}

/** The media proxy (interface.md 4.6): any member who may view dashboards may play the media their records reference. */
export function registerProxyRoutes(ctx: RouteContext, service: ProxyService): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/proxy',
    permission: 'dashboards:view',
    tags: ['Proxy'],
    query: ProxyQuery,
    summary: "Stream the media a record's proxy+<service>:<type>://<id> reference names, fetched through the organization's connection; Range passes through",
    responses: {
      200: { description: 'The upstream body, with its content type', contentType: 'application/octet-stream', schema: z.string() },
      206: { description: 'The requested range of it', contentType: 'application/octet-stream', schema: z.string() },
      404: { description: 'Unknown reference type, no such connection, upstream error or empty body', schema: ErrorBody },
      416: { description: 'The range lies outside the media', schema: ErrorBody },
      429: { description: 'Too many streams open for this organization', schema: ErrorBody },
    },
    handler: async ({ auth, query }, req, res) => {
      await service.stream(auth.organizationId, query, req.get('range'), responseSink(req, res));
      return undefined;
    },
  });
}
