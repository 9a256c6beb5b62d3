import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { forbidden, unauthorized } from '../errors.js';
import { authenticate, SESSION_COOKIE } from './auth.js';
import { SessionEntity } from './session.entities.js';
import type { ApiApp } from './version.js';

/** What a browser says about where a request comes from (`Sec-Fetch-Site`, `Origin`). */
interface RequestSource {
  readonly fetchSite: string | undefined;
  readonly origin: string | undefined;
  /** The origins this server answers as: its external URL's and the request's own (scheme and Host). */
  readonly own: readonly string[];
}

/**
 * Whether a sign-in may set the session cookie: a form on another site must not sign a visitor into the
 * attacker's account (login CSRF). A browser says where the request comes from; anything but this origin (or a
 * typed URL, `none`) is refused, `same-site` too (a sibling subdomain is another party). Clients that send
 * neither header (curl, API clients) are no browser and cannot carry a victim's cookie jar, so they sign in.
 */
export function sameOriginSignIn(src: RequestSource): boolean {
  if (src.fetchSite !== undefined && src.fetchSite !== 'same-origin' && src.fetchSite !== 'none')
    return false;
  if (src.origin === undefined) return true;
  return src.own.includes(src.origin);
}

const single = (v: string | string[] | undefined): string | undefined =>
  typeof v === 'string' ? v : undefined;

/** Web sign-in for the UI: `POST /-/session`, `GET /-/session`, `DELETE /-/session`. */
export function sessionRoutes(app: ApiApp, ctx: Pick<AppContext, 'config' | 'users'>): void {
  const secure = ctx.config.externalUrl.startsWith('https:');
  const external = new URL(ctx.config.externalUrl).origin;
  app.addHook('preHandler', authenticate(ctx.users));

  // Before the body is validated: a cross-site post learns nothing but this refusal.
  const sameOrigin = (what: string) => async (req: FastifyRequest) => {
    const src = {
      fetchSite: single(req.headers['sec-fetch-site']),
      // A repeated Origin is no single origin: it never matches.
      origin: req.headers.origin === undefined ? undefined : (single(req.headers.origin) ?? ''),
      own: [external, `${req.protocol}://${req.host}`],
    };
    if (!sameOriginSignIn(src)) throw forbidden(`cross-site ${what} is not allowed`);
  };

  app.post(
    '/-/session',
    {
      config: { public: true },
      preValidation: sameOrigin('sign-in'),
      schema: {
        body: Type.Object({ login: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }),
        response: { 200: SessionEntity },
      },
    },
    async (req, reply) => {
      const s = await ctx.users.signIn(req.body.login, req.body.password, req.ip);
      reply.setCookie(SESSION_COOKIE, s.token, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure,
        expires: new Date(s.expiresAt),
      });
      return {
        user: { id: s.user.id, username: s.user.username, name: s.user.name, is_admin: s.user.admin },
        csrf_token: s.csrfToken,
      };
    },
  );

  // Self-service sign-up while the application setting `signup_enabled` is on (404 otherwise); the new user then
  // signs in with POST /-/session.
  app.post(
    '/-/sign_up',
    {
      config: { public: true },
      preValidation: sameOrigin('sign-up'),
      schema: {
        body: Type.Object({
          username: Type.String({ minLength: 1 }),
          name: Type.String({ minLength: 1 }),
          email: Type.String({ minLength: 1 }),
          password: Type.String({ minLength: 1 }),
        }),
        response: { 201: SessionEntity.properties.user },
      },
    },
    async (req, reply) => {
      const user = await ctx.users.signUp(req.body);
      return reply
        .status(201)
        .send({ id: user.id, username: user.username, name: user.name, is_admin: user.admin });
    },
  );

  app.get('/-/session', { schema: { response: { 200: SessionEntity } } }, async (req) => {
    const { user, csrfToken, via } = req.actor;
    if (!user || via !== 'session' || !csrfToken) throw unauthorized();
    return {
      user: { id: user.id, username: user.username, name: user.name, is_admin: user.admin },
      csrf_token: csrfToken,
    };
  });

  // The profile page's own writes: only a browser session (with its CSRF token, checked by the authenticate hook)
  // changes its user's name, e-mail or password; a token cannot, as in GitLab, where these are web-only settings.
  const sessionUser = (req: FastifyRequest) => {
    if (req.actor.via !== 'session' || !req.actor.user) throw unauthorized();
    return req.actor.user;
  };

  app.put(
    '/-/profile',
    {
      schema: {
        body: Type.Object({ name: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }),
        response: { 200: SessionEntity.properties.user },
      },
    },
    async (req) => {
      const user = await ctx.users.updateProfile(sessionUser(req), req.body);
      return { id: user.id, username: user.username, name: user.name, is_admin: user.admin };
    },
  );

  app.put(
    '/-/profile/password',
    {
      schema: {
        body: Type.Object({
          current_password: Type.String({ minLength: 1 }),
          new_password: Type.String({ minLength: 1 }),
        }),
      },
    },
    async (req, reply) => {
      await ctx.users.changeOwnPassword(
        sessionUser(req),
        req.body.current_password,
        req.body.new_password,
        req.cookies[SESSION_COOKIE] ?? null,
      );
      return reply.status(204).send();
    },
  );

  app.delete('/-/session', async (req, reply) => {
    // The authenticate hook has already checked the CSRF token for this write.
    const cookie = req.cookies[SESSION_COOKIE];
    if (req.actor.via !== 'session' || !cookie) throw unauthorized();
    await ctx.users.signOut(cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });
}
