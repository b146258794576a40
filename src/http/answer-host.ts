import type { RequestHandler } from 'express';
import { RESUME_PATH } from '../executions/resume-links';
import { notFoundRoute } from './error-middleware';

/** The paths whose answers workflows write: webhook calls and resume links. */
const isAnswerPath = (path: string) => path.startsWith('/w/') || path.startsWith(`${RESUME_PATH}/`);

/** A host as both sides are compared: lower case, a default port (80, 443) left out. */
const hostKey = (host: string) => host.toLowerCase().replace(/:(80|443)$/, '');

/**
 * Webhook and resume answers on a host of their own (PUBLIC_BASE_URL and
 * WEBHOOK_BASE_URL on different hosts): a workflow's answer is then never a
 * document of the console's origin, whatever a browser makes of it, and the
 * console's origin answers no webhook or resume path. The answers' host
 * serves those paths and /healthz only: no console, no API, no session.
 * Either refusal is the plain 404 of an unknown route. The Host header
 * decides, so a proxy in front must pass it through.
 */
export function separateAnswerHost(answersHost: string): RequestHandler {
  const expected = hostKey(answersHost);
  return (req, res, next) => {
    const onAnswersHost = hostKey(req.get('host') ?? '') === expected;
    if (isAnswerPath(req.path) === onAnswersHost || (onAnswersHost && req.path === '/healthz')) return next();
    notFoundRoute(req, res, next);
  };
}
