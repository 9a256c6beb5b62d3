import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const cases = (await databases()).flatMap((db) =>
  (['16.11', '17.0', '18.0'] as const).map((release) => [db, release] as const),
);

describe.each(cases)('runners (%s, release %s)', (database, release) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let owner: { token: string; runnerToken: string };
  let project: { id: number };
  let runnerId: number;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_RELEASE: release } });
    api = http(s.url);
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'owner', name: 'Owner', email: 'owner@example.com', password: 'password-123' },
    });
    const api_ = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'api', scopes: ['api'] },
    });
    const create = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'runner', scopes: ['create_runner'] },
    });
    const p = await api.post('/api/v4/projects', { token: api_.body.token, body: { name: 'built' } });
    project = p.body;
    const r = await api.post('/api/v4/user/runners', {
      token: create.body.token,
      body: {
        runner_type: 'project_type',
        project_id: project.id,
        description: 'linux',
        tag_list: ['docker', 'linux'],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.token).toMatch(/^glrt-/);
    runnerId = r.body.id;
    owner = { token: api_.body.token, runnerToken: r.body.token };
  });
  afterAll(() => s?.stop());

  it('creates runners only with the create_runner (or api) scope and the right role', async () => {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'dev', name: 'Dev', email: 'dev@example.com', password: 'password-123' },
    });
    await api.post(`/api/v4/projects/${project.id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: 30 },
    });
    const devToken = (
      await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 'c', scopes: ['create_runner'] },
      })
    ).body.token;
    expect(
      (
        await api.post('/api/v4/user/runners', {
          token: devToken,
          body: { runner_type: 'project_type', project_id: project.id },
        })
      ).status,
    ).toBe(403);
    const readOnly = (
      await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 'r', scopes: ['read_api'] },
      })
    ).body.token;
    expect(
      await api.post('/api/v4/user/runners', { token: readOnly, body: { runner_type: 'instance_type' } }),
    ).toMatchObject({
      status: 403,
      body: { error: 'insufficient_scope', scope: 'create_runner' },
    });
    expect(
      (await api.post('/api/v4/user/runners', { token: owner.token, body: { runner_type: 'instance_type' } }))
        .status,
    ).toBe(403);
    expect(
      (
        await api.post('/api/v4/user/runners', {
          token: s.rootToken,
          body: { runner_type: 'instance_type', description: 'shared' },
        })
      ).status,
    ).toBe(201);
  });

  it('reports v4 and v5 shapes: active/paused, status rules with and without contact, ip_address by release', async () => {
    const v4 = await api.get(`/api/v4/runners/${runnerId}`, { token: owner.token });
    expect(v4.body).toMatchObject({
      id: runnerId,
      active: true,
      paused: false,
      status: 'not_connected',
      online: false,
      ip_address: release === '16.11' ? null : '',
      tag_list: ['docker', 'linux'],
      projects: [{ id: project.id }],
    });
    const v5 = await api.get(`/api/v5/runners/${runnerId}`, { token: owner.token });
    expect(v5.body).toMatchObject({ id: runnerId, paused: false, status: 'not_connected' });
    expect(v5.body).not.toHaveProperty('active');
    expect(v5.body).not.toHaveProperty('ip_address');

    expect((await api.post('/api/v4/runners/verify', { body: { token: owner.runnerToken } })).status).toBe(
      200,
    );
    expect((await api.post('/api/v4/runners/verify', { body: { token: 'glrt-unknown' } })).status).toBe(403);
    const contacted = await api.get(`/api/v4/runners/${runnerId}`, { token: owner.token });
    expect(contacted.body).toMatchObject({
      status: 'online',
      online: true,
      ip_address: release === '16.11' ? '127.0.0.1' : '',
    });

    // Paused: v4 says "paused", v5 keeps the contact status (spec).
    const paused = await api.put(`/api/v5/runners/${runnerId}`, {
      token: owner.token,
      body: { paused: true },
    });
    expect(paused.body).toMatchObject({ paused: true, status: 'online' });
    expect((await api.get(`/api/v4/runners/${runnerId}`, { token: owner.token })).body).toMatchObject({
      active: false,
      paused: true,
      status: 'paused',
    });
    // v4 still takes the deprecated active (with the signal); v5 refuses it; both together are refused.
    const active = await api.put(`/api/v4/runners/${runnerId}`, {
      token: owner.token,
      body: { active: true },
    });
    expect(active.body).toMatchObject({ active: true, paused: false });
    expect(active.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(
      await api.put(`/api/v5/runners/${runnerId}`, { token: owner.token, body: { active: true } }),
    ).toMatchObject({ status: 400, body: { error: 'active was removed in API v5: use paused' } });
    expect(
      await api.put(`/api/v4/runners/${runnerId}`, {
        token: owner.token,
        body: { active: true, paused: true },
      }),
    ).toMatchObject({ status: 400, body: { error: 'active, paused are mutually exclusive' } });
    expect((await api.put(`/api/v4/runners/${runnerId}`, { token: owner.token, body: {} })).status).toBe(400);

    // Three hours without contact: offline.
    s.clock.advance(3 * 3600_000);
    expect((await api.get(`/api/v5/runners/${runnerId}`, { token: owner.token })).body.status).toBe(
      'offline',
    );
  });

  it('lists and filters runners; v5 refuses the paused/active status filters', async () => {
    const mine = await api.get('/api/v4/runners', { token: owner.token });
    expect(mine.body.map((r: { id: number }) => r.id)).toEqual([runnerId]);
    expect((await api.get('/api/v4/runners?status=active', { token: owner.token })).body).toHaveLength(1);
    expect((await api.get('/api/v4/runners?tag_list=docker', { token: owner.token })).body).toHaveLength(1);
    expect((await api.get('/api/v4/runners?tag_list=windows', { token: owner.token })).body).toHaveLength(0);
    expect(await api.get('/api/v5/runners?status=paused', { token: owner.token })).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    });
    expect((await api.get('/api/v5/runners?status=offline', { token: owner.token })).body).toHaveLength(1);
    expect((await api.get('/api/v4/runners/all', { token: owner.token })).status).toBe(403);
    expect(
      (await api.get('/api/v4/runners/all?type=instance_type', { token: s.rootToken })).body.length,
    ).toBeGreaterThan(0);
    const projectRunners = await api.get(`/api/v4/projects/${project.id}/runners?type=project_type`, {
      token: owner.token,
    });
    expect(projectRunners.body.map((r: { id: number }) => r.id)).toEqual([runnerId]);
    // Assign to a second project, then unassign.
    const other = await api.post('/api/v4/projects', { token: owner.token, body: { name: 'other' } });
    expect(
      (
        await api.post(`/api/v4/projects/${other.body.id}/runners`, {
          token: owner.token,
          body: { runner_id: runnerId },
        })
      ).status,
    ).toBe(201);
    expect(
      (await api.delete(`/api/v4/projects/${other.body.id}/runners/${runnerId}`, { token: owner.token }))
        .status,
    ).toBe(204);
  });

  it('legacy registration: tokens work before 17.0 and answer 410 from 17.0; token resets answer 410 from 18.0', async () => {
    const reset = await api.post(`/api/v4/projects/${project.id}/runners/reset_registration_token`, {
      token: owner.token,
    });
    if (release === '18.0') {
      expect(reset).toMatchObject({
        status: 410,
        body: { message: '410 Gone - runner registration disallowed' },
      });
    } else {
      expect(reset.status).toBe(201);
      expect(reset.headers.get('deprecation')).toMatch(/^@\d+$/);
    }
    const register = await api.post('/api/v4/runners', {
      body: { token: reset.body.token ?? 'whatever', description: 'legacy', tag_list: 'a,b', paused: true },
    });
    if (release === '16.11') {
      expect(register.status).toBe(201);
      expect(register.body.token).toMatch(/^glrt-/);
      const legacy = await api.get(`/api/v4/runners/${register.body.id}`, { token: owner.token });
      expect(legacy.body).toMatchObject({
        description: 'legacy',
        paused: true,
        tag_list: ['a', 'b'],
        projects: [{ id: project.id }],
      });
      expect((await api.post('/api/v4/runners', { body: { token: 'not-a-token' } })).body).toEqual({
        message: '403 Forbidden - invalid token supplied',
      });
      // The runner removes itself with its token.
      expect((await api.delete('/api/v4/runners', { body: { token: register.body.token } })).status).toBe(
        204,
      );
    } else {
      expect(register).toMatchObject({
        status: 410,
        body: { message: '410 Gone - runner registration disallowed' },
      });
    }
    const instanceReset = await api.post('/api/v4/runners/reset_registration_token', { token: s.rootToken });
    expect(instanceReset.status).toBe(release === '18.0' ? 410 : 201);
  });

  it('resets a runner authentication token; the old one stops working', async () => {
    const r = await api.post('/api/v4/runners/reset_authentication_token', {
      body: { token: owner.runnerToken },
    });
    expect(r.status).toBe(201);
    expect((await api.post('/api/v4/runners/verify', { body: { token: owner.runnerToken } })).status).toBe(
      403,
    );
    expect((await api.post('/api/v4/runners/verify', { body: { token: r.body.token } })).status).toBe(200);
    owner.runnerToken = r.body.token;
  });
});
