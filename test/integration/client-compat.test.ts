import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * What GitLab clients rely on at the HTTP level: JSON answers typed exactly `application/json`
 * (python-gitlab 3.x compares it exactly), and `Content-Type: application/json` with an empty body accepted as
 * no body (python-gitlab sends that on every DELETE).
 */
describe.each(await databases())('GitLab clients at the HTTP level (%s)', (database) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ database });
  });
  afterAll(async () => s?.stop());

  it('types JSON answers exactly application/json, errors included', async () => {
    const api = http(s.url);
    for (const res of [
      await api.get('/api/v4/user', { token: s.rootToken }),
      await api.get('/api/v4/version', { token: s.rootToken }),
      await api.get('/api/v4/projects/404404', { token: s.rootToken }),
      await api.get('/api/v4/user'),
    ]) {
      expect(res.headers.get('content-type')).toBe('application/json');
    }
  });

  it('takes an empty JSON body as no body on DELETE, POST and PUT', async () => {
    const api = http(s.url);
    const headers = { 'content-type': 'application/json' };
    const created = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'empty-body' } });
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    // PUT with nothing to change: answered with the project, as GitLab does.
    const put = await api.put(`/api/v4/projects/${id}`, { token: s.rootToken, headers, raw: '' });
    expect(put.status).toBe(200);
    const del = await api.delete(`/api/v4/projects/${id}`, { token: s.rootToken, headers, raw: '' });
    expect(del.status).toBe(202);
    expect((await api.get(`/api/v4/projects/${id}`, { token: s.rootToken })).status).toBe(404);
    // Parameters in the query string with an empty JSON body (python-gitlab's create with query_data).
    const viaQuery = await api.post('/api/v4/projects?name=from-query', {
      token: s.rootToken,
      headers,
      raw: '',
    });
    expect(viaQuery.status).toBe(201);
    // A body that is not JSON is still refused, and whitespace alone is no body.
    const bad = await api.post('/api/v4/projects', { token: s.rootToken, headers, raw: '{"name":' });
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('message');
    const blank = await api.post('/api/v4/projects?name=blank-body', {
      token: s.rootToken,
      headers,
      raw: ' \n',
    });
    expect(blank.status).toBe(201);
  });

  it('reads the query string and the body as one set of parameters, the body winning', async () => {
    const api = http(s.url);
    const t = { token: s.rootToken };
    // python-gitlab's documented `gl.projects.create(name=...)`: the attributes in the query, `{}` as the body.
    const created = await api.post('/api/v4/projects?name=qs-project&description=from%20query', {
      ...t,
      body: {},
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'qs-project', description: 'from query' });
    // Query values beside a non-empty body are kept; on a conflict the body wins.
    const both = await api.post('/api/v4/projects?description=x&name=loser', {
      ...t,
      body: { name: 'winner' },
    });
    expect(both.status).toBe(201);
    expect(both.body).toMatchObject({ name: 'winner', description: 'x' });
    const user = (await api.get('/api/v4/user', t)).body as { id: number };
    const put = await api.put(`/api/v4/users/${user.id}?bio=from%20query`, { ...t, body: {} });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ bio: 'from query' });
    // A token in the query authenticates; it is never read as an attribute.
    const tokenInQuery = await api.put(`/api/v4/projects/${both.body.id}?private_token=${s.rootToken}`, {
      body: { description: 'y' },
    });
    expect(tokenInQuery.status).toBe(200);
    expect(tokenInQuery.body).toMatchObject({ description: 'y' });
  });

  it('collapses repeated slashes and ignores a trailing one, as GitLab routes (API and git)', async () => {
    const api = http(s.url);
    const t = { token: s.rootToken };
    // python-gitlab's features manager asks for `/features/` and `/features//<name>`.
    expect((await api.get('/api/v4/features/', t)).status).toBe(200);
    const set = await api.post('/api/v4/features//slashy_flag', { ...t, body: { value: true } });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({ name: 'slashy_flag', state: 'on' });
    expect((await api.delete('/api/v4/features//slashy_flag', t)).status).toBe(204);
    expect((await api.get('/api/v4//projects/', t)).status).toBe(200);
    const project = (await api.post('/api/v4/projects', { ...t, body: { name: 'slashes' } })).body as {
      path_with_namespace: string;
    };
    const refs = await fetch(
      `${s.url}//${project.path_with_namespace}.git//info/refs?service=git-upload-pack`,
      {
        headers: { authorization: `Basic ${Buffer.from(`root:${s.rootToken}`).toString('base64')}` },
      },
    );
    expect(refs.status).toBe(200);
    expect(refs.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
  });

  it("reads Grape's boolean spellings in query strings and forms (True, 1, yes, on, t and their false forms)", async () => {
    const api = http(s.url);
    const other = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'bool-user', email: 'bool@example.com', name: 'B', password: 'bool-user-pass-1' },
    });
    expect(other.status).toBe(201);
    const project = await api.post(`/api/v4/projects/user/${(other.body as { id: number }).id}`, {
      token: s.rootToken,
      body: { name: 'not-mine' },
    });
    expect(project.status).toBe(201);
    const names = async (q: string) => {
      const res = await api.get<{ name: string }[]>(`/api/v4/projects?${q}`, { token: s.rootToken });
      expect(res.status, q).toBe(200);
      return res.body.map((p) => p.name);
    };
    const all = await names('owned=false');
    expect(all).toContain('not-mine');
    for (const yes of ['True', 'true', '1', 'yes', 'on', 't', 'Y'])
      expect(await names(`owned=${yes}`)).not.toContain('not-mine');
    for (const no of ['False', '0', 'no', 'off', 'f', 'N']) expect(await names(`owned=${no}`)).toEqual(all);
    const bad = await api.get('/api/v4/projects?owned=maybe', { token: s.rootToken });
    expect(bad).toMatchObject({ status: 400, body: { error: 'owned is invalid' } });

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const on = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      headers: form,
      raw: 'allow_local_requests_from_web_hooks_and_services=True',
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ allow_local_requests_from_web_hooks_and_services: true });
    const off = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      headers: form,
      raw: 'allow_local_requests_from_web_hooks_and_services=0',
    });
    expect(off.body).toMatchObject({ allow_local_requests_from_web_hooks_and_services: false });
  });

  it('coerces JSON strings to the declared types as Grape does, and never null to a value', async () => {
    const api = http(s.url);
    const parent = await api.post<{ id: number }>('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'coerce-parent', path: 'coerce-parent' },
    });
    expect(parent.status).toBe(201);
    // python-gitlab's CLI sends every value as a string.
    const child = await api.post<{ parent_id: number }>('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'coerce-child', path: 'coerce-child', parent_id: String(parent.body.id) },
    });
    expect(child).toMatchObject({ status: 201, body: { parent_id: parent.body.id } });
    const settings = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: {
        incident_management_notification_max_alerts: '7',
        allow_local_requests_from_web_hooks_and_services: 'True',
      },
    });
    expect(settings.body).toMatchObject({
      incident_management_notification_max_alerts: 7,
      allow_local_requests_from_web_hooks_and_services: true,
    });
    // A number where a string is declared becomes the string.
    const renamed = await api.put<{ description: string }>(`/api/v4/groups/${parent.body.id}`, {
      token: s.rootToken,
      body: { description: 42 },
    });
    expect(renamed).toMatchObject({ status: 200, body: { description: '42' } });
    // What does not read as the declared type is refused, and changes nothing.
    for (const parent_id of ['abc', '1.5', '', ' ', '1e3x'])
      expect(
        (
          await api.post('/api/v4/groups', {
            token: s.rootToken,
            body: { name: 'x', path: 'coerce-x', parent_id },
          })
        ).status,
        parent_id,
      ).toBe(400);
    expect((await api.get('/api/v4/groups?search=coerce-x', { token: s.rootToken })).body).toEqual([]);
    // null is never coerced: v5 still refuses private_profile: null, v4 applies the default.
    const user = {
      username: 'coerce-user',
      email: 'coerce@example.com',
      name: 'C',
      password: 'coerce-user-pass-1',
    };
    const v5 = await api.post('/api/v5/users', {
      token: s.rootToken,
      body: { ...user, private_profile: null },
    });
    expect(v5.status).toBe(400);
    const v4 = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { ...user, private_profile: null },
    });
    expect(v4.status).toBe(201);
  });
});
