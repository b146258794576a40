import type { Request, Response } from 'express';
import { ValidationError } from '../errors/errors';
import { defineRoute, type RouteContext } from '../http/route';
import { readSessionCookie, SESSION_COOKIE } from './session-cookie';
import { SessionSchema, SignedOutSchema, SignInBody } from './sessions.schemas';
import type { SessionsService } from './sessions.service';

/** The cookie's attributes: Secure whenever the service is reached over HTTPS (directly, or as its public URL says). */
function cookieOptions(req: Request, publicBaseUrl: string | undefined) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: req.secure || Boolean(publicBaseUrl?.startsWith('https:')), path: '/' };
}

/** Console sign-in: a token exchanged for an HttpOnly session cookie, who is signed in, and sign-out. */
export function registerSessionRoutes(ctx: RouteContext, sessions: SessionsService, publicBaseUrl: string | undefined): void {
  const tags = ['Console session'];
  defineRoute(ctx, {
    method: 'post',
    path: '/session',
    tags,
    body: SignInBody,
    summary:
      'Sign in to the console: exchange an access token for a session in an HttpOnly, SameSite=Strict cookie (`flowbase_session`). The session acts as that token and ends with it.',
    responses: {
      201: { description: 'Signed in; the cookie is set', schema: SessionSchema },
      401: { description: 'The token is invalid, expired or revoked' },
    },
    handler: async ({ body }, req, res: Response) => {
      const { secret, session } = await sessions.signIn(body.token);
      res.cookie(SESSION_COOKIE, secret, { ...cookieOptions(req, publicBaseUrl), expires: session.expiresAt ?? undefined });
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
      const secret = auth.session ? readSessionCookie(req) : undefined;
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
      res.clearCookie(SESSION_COOKIE, cookieOptions(req, publicBaseUrl));
      return { status: 200, body: { signedOut: true as const } };
    },
  });
}
