import { http } from './http.js';
import type { TestServer } from './server.js';

/**
 * A new project (named `name`) with one user per role, each a member at its access level with an `api` token:
 * for tests of who may do what, from outside over HTTP. User names end in `-<suffix>` so a server can hold many.
 */
export async function projectWithMembers<R extends string>(
  s: TestServer,
  name: string,
  levels: Readonly<Record<R, number>>,
  suffix: string | number,
): Promise<{ api: ReturnType<typeof http>; id: number; path: string; tokens: Record<string, string> }> {
  const api = http(s.url);
  const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name } });
  const tokens: Record<string, string> = {};
  for (const [role, level] of Object.entries(levels) as [R, number][]) {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: `${role}-${suffix}`,
        name: role,
        email: `${role}-${suffix}@example.com`,
        password: 'password-123',
      },
    });
    await api.post(`/api/v4/projects/${p.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: level },
    });
    tokens[role] = (
      await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
  }
  return { api, id: p.body.id as number, path: p.body.path_with_namespace as string, tokens };
}

/** A new user `name` (e-mail `<name>@example.com`, password `password-123`) with an `api` token. */
export async function createUser(s: TestServer, name: string): Promise<{ id: number; token: string }> {
  const api = http(s.url);
  const u = await api.post<{ id: number }>('/api/v4/users', {
    token: s.rootToken,
    body: { username: name, name, email: `${name}@example.com`, password: 'password-123' },
  });
  const t = await api.post<{ token: string }>(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
    token: s.rootToken,
    body: { name: 'api', scopes: ['api'] },
  });
  return { id: u.body.id, token: t.body.token };
}
