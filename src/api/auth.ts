import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { adminActor, signedInActor } from '../access/access.policy.js';
import { forbidden, insufficientScope, notFound } from '../errors.js';
import type { PersonalAccessToken, TokenScope, User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';

export const SESSION_COOKIE = '_svc_session';

/** Who is calling: a user (or nobody), how, and with which token scopes (`null`: a web session, all scopes). */
export interface Actor {
  readonly user: User | null;
  readonly via: 'token' | 'session' | 'anonymous';
  readonly scopes: ReadonlySet<TokenScope> | null;
  /** The token that authenticated the request, if any. */
  readonly token?: PersonalAccessToken;
  /** The session's CSRF token, for the web UI. */
  readonly csrfToken?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
  interface FastifyContextConfig {
    /** Scope that also grants read access to this route (e.g. `read_user` for user routes). */
    readScope?: TokenScope;
    /** Scope that also grants write access to this route (`create_runner` for `POST /user/runners`). */
    writeScope?: TokenScope;
    /** Routes outside the GitLab API (session sign-in) skip API authentication. */
    public?: boolean;
  }
}

const ANONYMOUS: Actor = { user: null, via: 'anonymous', scopes: null };
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Reads the token from `PRIVATE-TOKEN` (any case), `Authorization: Bearer`, or `private_token`/`access_token`. */
function tokenFrom(request: FastifyRequest): string | null {
  const header = request.headers['private-token'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  const q = request.query as Record<string, unknown> | undefined;
  const fromQuery = q?.private_token ?? q?.access_token;
  return typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : null;
}

/**
 * Builds the API authentication hook. A token that is present but bad is a 401 even if a session cookie is
 * also sent. Token callers need `api` to write and `api`/`read_api` (or the route's read scope) to read.
 * Cookie callers need the session's CSRF token in `X-CSRF-Token` to write.
 */
export function authenticate(users: UsersService) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.config.public) {
      request.actor = ANONYMOUS;
      return;
    }
    const raw = tokenFrom(request);
    const read = READ_METHODS.has(request.method);
    if (raw !== null) {
      const { user, token } = await users.authenticateToken(raw);
      const scopes = new Set(token.scopes);
      const { readScope, writeScope } = request.routeOptions.config;
      const allowed =
        scopes.has('api') ||
        (read && (scopes.has('read_api') || (readScope !== undefined && scopes.has(readScope)))) ||
        (!read && writeScope !== undefined && scopes.has(writeScope));
      if (!allowed) throw insufficientScope(read ? 'read_api' : (writeScope ?? 'api'));
      request.actor = await sudo(request, users, { user, via: 'token', scopes, token });
      return;
    }
    const cookie = request.cookies?.[SESSION_COOKIE];
    if (cookie) {
      const session = await users.authenticateSession(cookie);
      if (session) {
        if (!read && request.headers['x-csrf-token'] !== session.csrfToken) {
          throw forbidden('CSRF token is missing or invalid');
        }
        if (sudoTarget(request) !== null) {
          throw forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
        }
        request.actor = { user: session.user, via: 'session', scopes: null, csrfToken: session.csrfToken };
        return;
      }
    }
    request.actor = ANONYMOUS;
  };
}

/** The Sudo target named by the `Sudo` header or the `sudo` parameter, if any. */
function sudoTarget(request: FastifyRequest): string | null {
  const header = request.headers.sudo;
  const param = (request.query as Record<string, unknown> | undefined)?.sudo;
  if (typeof header === 'string' && header !== '') return header;
  return typeof param === 'string' && param !== '' ? param : null;
}

/**
 * GitLab's Sudo (lib/api/helpers.rb `sudo!`): only an admin, only with a token that has the `sudo` scope, and
 * only to act as an existing, active user; a blocked target is refused as its own requests would be.
 */
async function sudo(request: FastifyRequest, users: UsersService, actor: Actor): Promise<Actor> {
  const target = sudoTarget(request);
  if (target === null) return actor;
  // Authentication, not an access decision: a token of a non-admin cannot name another user (GitLab's message).
  if (!actor.user?.admin) throw forbidden('Must be admin to use sudo');
  if (!actor.scopes?.has('sudo')) throw insufficientScope('sudo');
  const user = await users.resolve(target);
  if (!user) throw notFound(`User with ID or username '${target}'`);
  if (user.state !== 'active') throw forbidden('Your account has been blocked.');
  return { ...actor, user };
}

/** The signed-in user, or 401. */
export function requireUser(request: FastifyRequest): User {
  return signedInActor(request.actor.user);
}

/** An admin, or 401/403. */
export function requireAdmin(request: FastifyRequest): User {
  return adminActor(request.actor.user);
}
