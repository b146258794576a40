import type { Response } from 'express';
import { ValidationError } from '../errors/errors';
import { defineRoute, type RouteContext } from '../http/route';
import type { SessionCookies } from './session-cookie';
import { SessionSchema, SignedOutSchema, SignInBody } from './sessions.schemas';
import type { SessionsService } from './sessions.service';

/** Console sign-in: a token exchanged for an HttpOnly session cookie, who is signed in, and sign-out. */
export function registerSessionRoutes(ctx: RouteContext, sessions: SessionsService, cookies: SessionCookies): void {
  const tags = ['Console session'];
  defineRoute(ctx, {
    method: 'post',
    path: '/session',
    tags,
    body: SignInBody,
    summary:
      'Sign in to the console: exchange an access token for a session in an HttpOnly, SameSite=Strict cookie (`__Host-flowbase_session` over HTTPS, `flowbase_session` over plain HTTP). The session acts as that token and ends with it; a session the browser already held ends.',
    responses: {
      201: { description: 'Signed in; the cookie is set', schema: SessionSchema },
      401: { description: 'The token is invalid, expired or revoked' },
    },
    handler: async ({ body }, req, res: Response) => {
      // Signing in over a live session replaces it: the old one ends on the server, not only in this browser.
      const { secret, session } = await sessions.signIn(body.token, cookies.read(req));
      const expires = session.expiresAt ?? undefined;
      res.cookie(cookies.name(req), secret, { ...cookies.options(req), expires });
      res.cookie(cookies.csrfName(req), session.csrfToken, { ...cookies.csrfOptions(req), expires });
      return { status: 201, body: session };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/session',
    permission: null,
    tags,
    summary:
      'Who is signed in to the console, and the CSRF token its writes must carry (a page reload asks here again). A bearer token caller gets who it is, with no CSRF token.',
    responses: { 200: { description: 'The session', schema: SessionSchema } },
    handler: async ({ auth }, req) => {
      const secret = auth.session ? cookies.read(req) : undefined;
      return { status: 200, body: await sessions.current(auth, secret, auth.session?.expiresAt ?? auth.tokenExpiresAt) };
    },
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/session',
    permission: null,
    tags,
    summary: 'Sign out: ends the session on the server at once and clears the cookie',
    responses: { 200: { description: 'Signed out', schema: SignedOutSchema }, 400: { description: 'The request carries a bearer token, not a session' } },
    handler: async ({ auth }, req, res: Response) => {
      if (!auth.session) {
        throw new ValidationError(
          'This request carries a bearer token, not a console session; to end a token, revoke it (DELETE /tokens/{id})',
          undefined,
          'no_session',
        );
      }
      await sessions.signOut(auth.session.id);
      res.clearCookie(cookies.name(req), cookies.options(req));
      res.clearCookie(cookies.csrfName(req), cookies.csrfOptions(req));
      return { status: 200, body: { signedOut: true as const } };
    },
  });
}
