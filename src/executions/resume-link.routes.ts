import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { EventPayload } from './executions.schemas';
import { sendReply } from './reply-resolver';
import { RESUME_PATH } from './resume-links';
import type { RunEventsService } from './run-events.service';

/**
 * `POST /resume/{token}`: a resume link (`{{ $resume.<stepId> }}`), public:
 * the token is the credential, used once. POST only, so a chat app's link
 * preview (a GET) never approves anything; any other method is the plain 404
 * of an unknown path.
 */
export function registerResumeLinkRoutes(ctx: RouteContext, events: RunEventsService): void {
  defineRoute(ctx, {
    method: 'post',
    path: `${RESUME_PATH}/:token`,
    tags: ['Executions'],
    params: z.object({ token: z.string().min(1).max(100) }),
    body: EventPayload,
    summary:
      "Resume a waiting run through its one-time link: the JSON body is the event's payload. Answers what the run tells next, as a webhook does: its next return step's response, or 202 while it goes on",
    responses: {
      200: { description: "The next return step's response (its own status, headers and body)", schema: z.unknown() },
      202: { description: 'The run took the event and goes on, or waits again' },
      404: { description: 'Unknown, used or expired link (the answer says nothing more)' },
    },
    handler: async ({ params, body }, _req, res) => {
      const { executionId, answer } = await events.resume(params.token, body);
      sendReply(res, executionId, answer);
      return undefined;
    },
  });
}
