import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { unauthorized } from '../errors.js';
import { authenticate, SESSION_COOKIE } from './auth.js';
import { SessionEntity } from './session.entities.js';
import type { ApiApp } from './version.js';

/** Web sign-in for the UI: `POST /-/session`, `GET /-/session`, `DELETE /-/session`. */
export function sessionRoutes(app: ApiApp, ctx: Pick<AppContext, 'config' | 'users'>): void {
  const secure = ctx.config.externalUrl.startsWith('https:');
  app.addHook('preHandler', authenticate(ctx.users));

  app.post(
    '/-/session',
    {
      config: { public: true },
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

  app.get('/-/session', { schema: { response: { 200: SessionEntity } } }, async (req) => {
    const { user, csrfToken, via } = req.actor;
    if (!user || via !== 'session' || !csrfToken) throw unauthorized();
    return {
      user: { id: user.id, username: user.username, name: user.name, is_admin: user.admin },
      csrf_token: csrfToken,
    };
  });

  app.delete('/-/session', async (req, reply) => {
    // The authenticate hook has already checked the CSRF token for this write.
    const cookie = req.cookies[SESSION_COOKIE];
    if (req.actor.via !== 'session' || !cookie) throw unauthorized();
    await ctx.users.signOut(cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(204).send();
  });
}
