import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { createAuthenticate } from '../auth/authenticate';
import { registerConnectionRoutes } from '../connections/connections.routes';
import { registerAnalyticsRoutes } from '../analytics/analytics.routes';
import { registerDataSourceRoutes } from '../data-sources/data-sources.routes';
import { registerDashboardRoutes } from '../dashboards/dashboards.routes';
import { registerDashboardValidateRoutes } from '../dashboards/dashboard-validate.routes';
import { registerDashboardPdfRoutes } from '../dashboards/dashboard-pdf.routes';
import { registerDashboardReportRoutes } from '../dashboards/dashboard-report.routes';
import { registerDashboardExportRoutes } from '../dashboards/dashboard-export.routes';
import { registerPackageRoutes } from '../packages/packages.routes';
import { registerShareRoutes } from '../shares/shares.routes';
import { registerProxyRoutes } from '../proxy/proxy.routes';
import { registerDataFeedRoutes, registerFeedSyncHistoryRoutes } from '../data-feeds/data-feeds.routes';
import { registerDataStoreRoutes } from '../data-stores/data-stores.routes';
import { registerExecutionRoutes } from '../executions/executions.routes';
import { registerReplayRoutes } from '../executions/replays.routes';
import { registerResumeLinkRoutes } from '../executions/resume-link.routes';
import { registerWebhookHost } from '../webhooks/webhook-host.routes';
import { registerWebhookTriggerRoutes } from '../webhooks/webhook-triggers.routes';
import { registerScheduleTriggerRoutes } from '../schedules/schedule-triggers.routes';
import { registerWorkflowRoutes } from '../workflows/workflows.routes';
import { registerDraftRoutes } from '../drafts/drafts.routes';
import { registerEnvironmentRoutes } from '../environments/environments.routes';
import { registerHealthRoutes } from '../health/health.routes';
import { errorMiddleware, notFoundRoute } from '../http/error-middleware';
import type { RouteContext } from '../http/route';
import '../http/request-context';
import { createRegistry, generateOpenApiDocument } from '../openapi/registry';
import { registerOrganizationRoutes } from '../organizations/organizations.routes';
import { registerLlmPriceRoutes } from '../organizations/llm-prices.routes';
import { registerInvitationRoutes } from '../organizations/invitations.routes';
import { registerTokenRoutes } from '../auth/tokens.routes';
import { registerSessionRoutes } from '../auth/sessions.routes';
import { sessionCookies } from '../auth/session-cookie';
import { registerConsole } from '../console/console.routes';
import { requestLog } from '../http/request-log';
import { traceResponse } from '../observability/trace-context';
import { apiSecurityHeaders, DOCS_PREFIX } from '../http/security-headers';
import { separateAnswerHost } from '../http/answer-host';
import { assertSafeInput } from '../http/json-guard';
import type { Services } from './services';

/** A JSON body parser whose result passes the input guard before any handler sees it. */
function guardedJsonBody(parse: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      try {
        assertSafeInput(req.body, 'body');
      } catch (refused) {
        return next(refused);
      }
      next();
    });
}

/** The management API: every domain's routes, the OpenAPI document and its reference page. */
export function createApp(services: Services): Express {
  const app = express();
  // Paths match as written: /RESUME/<token> or /WORKFLOWS is an unknown path (404), not another spelling of a route, so
  // a credential in a path reaches its route only as the rest of the code spells it (the request log's redaction, say).
  // Set before anything is mounted: the app's router takes it when it is made. Strict routing stays off: a trailing slash is tolerated.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLog(services.logger));
  // With tracing on, each answer names its trace (webhook calls name theirs in src/webhooks/webhook-span.ts).
  app.use((_req, res, next) => {
    const header = traceResponse();
    if (header) res.setHeader('traceresponse', header);
    next();
  });
  app.use(apiSecurityHeaders);
  if (services.config.http.answersHost) app.use(separateAnswerHost(services.config.http.answersHost));

  // A router of its own does not take the app's settings.
  const router = Router({ caseSensitive: true });
  const cookies = sessionCookies(services.config.http.publicBaseUrl);
  const registry = createRegistry();
  const jsonParser = (limit: string) => express.json({ limit, strict: false }) as RequestHandler;
  const jsonBodyWithLimit = (limit: string) => guardedJsonBody(jsonParser(limit));
  const ctx: RouteContext = {
    router,
    registry,
    ...createAuthenticate(services.tokens, services.consoleSessions, cookies, services.principalCache),
    jsonBody: jsonBodyWithLimit(services.config.http.bodyLimit),
    jsonBodyWithLimit,
    unguardedJsonBody: jsonParser(services.config.http.bodyLimit),
  };

  registerHealthRoutes(ctx, services.databaseDiagnostics, services.temporal.connection);
  registerOrganizationRoutes(ctx, services.organizations);
  registerLlmPriceRoutes(ctx, services.llmPrices);
  registerInvitationRoutes(ctx, services.invitations);
  registerTokenRoutes(ctx, services.tokenService);
  registerSessionRoutes(ctx, services.sessions, cookies);
  registerConnectionRoutes(ctx, services.connections, services.catalog);
  registerEnvironmentRoutes(ctx, services.environments);
  registerWorkflowRoutes(ctx, services.workflows);
  registerDraftRoutes(ctx, services.drafts, services.executions);
  registerWebhookTriggerRoutes(ctx, services.webhookTriggers, services.scheduleTriggers, services.config.http.webhookBaseUrl);
  registerScheduleTriggerRoutes(ctx, services.scheduleTriggers);
  registerDataStoreRoutes(ctx, services.dataStores, services.config.dataStores.importLimitBytes);
  registerDataSourceRoutes(ctx, services.dataSources, services.sourceMembers);
  registerAnalyticsRoutes(ctx, services.analytics);
  registerShareRoutes(ctx, services.shares);
  registerProxyRoutes(ctx, services.proxy);
  registerDataFeedRoutes(ctx, services.dataFeeds);
  registerFeedSyncHistoryRoutes(ctx, services.feedSyncHistory);
  // After the data source, analytics and share routes: /dashboards/:id must not take /dashboards/data-sources, /dashboards/data-feeds, /dashboards/shares, /dashboards/proxy or /dashboards/analytics/….
  registerDashboardValidateRoutes(ctx, services.dashboardValidation);
  registerDashboardPdfRoutes(ctx, services.dashboardPdf);
  registerDashboardReportRoutes(ctx, services.dashboardReport);
  registerDashboardExportRoutes(ctx, services.dashboardExport, services.dashboardImport);
  registerDashboardRoutes(ctx, services.dashboards, services.widgetData);
  registerExecutionRoutes(ctx, services.executions, services.runEvents);
  registerResumeLinkRoutes(ctx, services.runEvents);
  registerReplayRoutes(ctx, services.replays);
  registerPackageRoutes(ctx, services.packages);

  // Built at its first reader, once every route above is registered: generating it is half a second that every start
  // (and every test file's app) would pay for a page few open.
  let reference: { document: ReturnType<typeof generateOpenApiDocument>; page: RequestHandler } | undefined;
  const apiReference = () => {
    if (!reference) {
      const document = generateOpenApiDocument(registry, services.config.http.publicBaseUrl);
      // swagger-ui-express ships assets from npm (no CDN) and is typed for Express 4; its handlers work on 5.
      reference = { document, page: swaggerUi.setup(document, { customSiteTitle: 'Flowbase API reference' }) as unknown as RequestHandler };
    }
    return reference;
  };
  app.get('/openapi.json', (_req, res) => {
    res.json(apiReference().document);
  });
  app.use(DOCS_PREFIX, ...(swaggerUi.serve as unknown as RequestHandler[]), (req: Request, res: Response, next: NextFunction) =>
    apiReference().page(req, res, next),
  );
  registerConsole(app, services.config.console);
  registerWebhookHost(app, {
    host: services.webhookHost,
    bodyLimit: services.config.webhooks.bodyLimit,
    webhookBaseUrl: services.config.http.webhookBaseUrl,
  });
  app.use(router);
  app.use(notFoundRoute);
  app.use(errorMiddleware(services.logger));
  return app;
}
