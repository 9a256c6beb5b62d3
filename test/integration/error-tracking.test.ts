import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { type FakeSentry, startFakeSentry } from '../helpers/fake-sentry.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A loopback port that was bound and closed again, so that nothing listens on it. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;

describe.each(
  await databases(),
)('error tracking settings, keys, errors and the external backend (%s)', (database) => {
  let selfManaged: TestServer;
  let hosted: TestServer;
  let sentry: FakeSentry;
  let runs = 0;

  async function setup(s: TestServer) {
    const n = ++runs;
    return projectWithMembers(s, `tracked-${n}`, LEVELS, n);
  }

  beforeAll(async () => {
    [selfManaged, hosted, sentry] = await Promise.all([
      startTestServer({ database, env: { SVC_OUTBOUND_TIMEOUT_MS: '1000' } }),
      startTestServer({ database, env: { SVC_OFFERING: 'hosted' } }),
      startFakeSentry(),
    ]);
  });
  afterAll(async () => {
    await selfManaged?.stop();
    await hosted?.stop();
    await sentry?.stop();
  });

  it('refuses the integrated backend on self-managed unless an admin enables the feature flag', async () => {
    const { api, id } = await setup(selfManaged);
    const refused = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: selfManaged.rootToken,
      body: { active: true, integrated: true },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/hosted offering.*integrated_error_tracking/);
    expect(
      (await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: selfManaged.rootToken }))
        .body,
    ).toEqual([]);
    await api.post('/api/v4/features/integrated_error_tracking', {
      token: selfManaged.rootToken,
      body: { value: true, project: String(id) },
    });
    const ok = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: selfManaged.rootToken,
      body: { active: true, integrated: true },
    });
    expect(ok.body).toEqual({
      active: true,
      project_name: null,
      sentry_external_url: null,
      api_url: null,
      integrated: true,
      // The attachment limit's default, and nothing received yet.
      max_attachment_size: 1024 * 1024,
      dropped_items: {},
    });
    // Saving the integrated backend created a first key.
    expect(
      (await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: selfManaged.rootToken }))
        .body,
    ).toHaveLength(1);
  });

  it('needs Maintainer for settings and keys, Reporter to read errors, Developer to change them', async () => {
    const { api, id, tokens } = await setup(hosted);
    const settings = `/api/v4/projects/${id}/error_tracking/settings`;
    for (const role of ['guest', 'reporter', 'developer']) {
      expect((await api.get(settings, { token: tokens[role] })).status, role).toBe(403);
      expect(
        (await api.post(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: tokens[role] })).status,
        role,
      ).toBe(403);
    }
    expect(
      (await api.put(settings, { token: tokens.maintainer, body: { active: true, integrated: true } }))
        .status,
    ).toBe(200);
    const keys = await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, {
      token: tokens.maintainer,
    });
    const store = `${hosted.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${keys.body[0].public_key}`;
    await fetch(store, {
      method: 'POST',
      body: JSON.stringify({ event_id: 'c'.repeat(32), message: 'hello', platform: 'python' }),
    });
    const errors = `/api/v4/projects/${id}/error_tracking/errors`;
    expect((await api.get(errors, { token: tokens.guest })).status).toBe(403);
    const list = await api.get(errors, { token: tokens.reporter });
    expect(list.body).toHaveLength(1);
    expect(list.headers.get('x-total')).toBe('1');
    // The error's page in svc's UI; an integrated error has no external page.
    expect(list.body[0]).toMatchObject({
      web_url: `${hosted.url}/-/ui/projects/${id}/errors/${list.body[0].id}`,
      external_url: null,
    });
    expect((await api.get(`${errors}?search=hel`, { token: tokens.reporter })).body).toHaveLength(1);
    expect((await api.get(`${errors}?search=nope`, { token: tokens.reporter })).body).toHaveLength(0);
    const eid = list.body[0].id;
    expect(
      (await api.put(`${errors}/${eid}`, { token: tokens.reporter, body: { status: 'ignored' } })).status,
    ).toBe(403);
    expect(
      (await api.put(`${errors}/${eid}`, { token: tokens.developer, body: { status: 'ignored' } })).body
        .status,
    ).toBe('ignored');
    expect(
      await api.put(`${errors}/${eid}`, { token: tokens.developer, body: { status: 'gone' } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    });
    const events = await api.get(`${errors}/${eid}/events`, { token: tokens.reporter });
    expect(events.body).toEqual([
      expect.objectContaining({ event_id: 'c'.repeat(32), message: 'hello', level: 'error' }),
    ]);
    expect((await api.get(`${errors}/999999`, { token: tokens.reporter })).body).toEqual({
      message: '404 Error Not Found',
    });
  });

  it('answers 404 for settings never saved; PATCH needs `active` and saved settings to toggle', async () => {
    const { api, id } = await setup(hosted);
    const t = hosted.rootToken;
    const settings = `/api/v4/projects/${id}/error_tracking/settings`;
    expect(await api.get(settings, { token: t })).toMatchObject({
      status: 404,
      body: { message: '404 Error Tracking Setting Not Found' },
    });
    expect(await api.patch(settings, { token: t, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'active is missing' },
    });
    // Nothing configured to enable: GitLab's PATCH answers 404 and creates nothing.
    expect(await api.patch(settings, { token: t, body: { active: true } })).toMatchObject({
      status: 404,
      body: { message: '404 Error Tracking Setting Not Found' },
    });
    expect((await api.get(settings, { token: t })).status).toBe(404);
    expect((await api.put(settings, { token: t, body: { active: true, integrated: true } })).status).toBe(
      200,
    );
    expect(await api.patch(settings, { token: t, body: { active: false } })).toMatchObject({
      status: 200,
      body: { active: false, integrated: true },
    });
    expect(await api.patch(settings, { token: t, body: { integrated: false } })).toMatchObject({
      status: 400,
      body: { error: 'active is missing' },
    });
    expect((await api.get(settings, { token: t })).body).toMatchObject({ active: false, integrated: true });
  });

  it('paginates client keys with X-Total, X-Page and Link', async () => {
    const { api, id } = await setup(hosted);
    const t = hosted.rootToken;
    await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: t,
      body: { active: true, integrated: true },
    });
    const keys = `/api/v4/projects/${id}/error_tracking/client_keys`;
    await api.post(keys, { token: t });
    await api.post(keys, { token: t });
    const all = (await api.get(`${keys}?per_page=100`, { token: t })).body.map((k: { id: number }) => k.id);
    expect(all).toHaveLength(3);
    const first = await api.get(`${keys}?per_page=2`, { token: t });
    expect(first.body.map((k: { id: number }) => k.id)).toEqual(all.slice(0, 2));
    expect(first.headers.get('x-total')).toBe('3');
    expect(first.headers.get('x-total-pages')).toBe('2');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-next-page')).toBe('2');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBe(`${hosted.url}${keys}?per_page=2&page=2`);
    const second = await api.get(next!.slice(hosted.url.length), { token: t });
    expect(second.body.map((k: { id: number }) => k.id)).toEqual(all.slice(2));
    expect(second.headers.get('x-next-page')).toBe('');
  });

  it('rotates a leaked DSN: create a new key, list, delete the old one; the old key stops working', async () => {
    const { api, id } = await setup(hosted);
    const t = hosted.rootToken;
    await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: t,
      body: { active: true, integrated: true },
    });
    const [old] = (await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: t })).body;
    const fresh = await api.post(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: t });
    expect(fresh.status).toBe(201);
    const list = await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: t });
    expect(list.body.map((k: { id: number }) => k.id)).toEqual([old.id, fresh.body.id]);
    const deleted = await api.delete(`/api/v4/projects/${id}/error_tracking/client_keys/${old.id}`, {
      token: t,
    });
    expect(deleted).toMatchObject({ status: 200, body: { id: old.id, public_key: old.public_key } });
    const url = (key: string) =>
      `${hosted.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${key}`;
    const body = JSON.stringify({ message: 'after rotation' });
    expect((await fetch(url(old.public_key), { method: 'POST', body })).status).toBe(404);
    expect((await fetch(url(fresh.body.public_key), { method: 'POST', body })).status).toBe(200);
    expect(
      (await api.delete(`/api/v4/projects/${id}/error_tracking/client_keys/${old.id}`, { token: t })).status,
    ).toBe(404);
    // gitbeaker's form: the key id in the body (or query) of DELETE .../client_keys.
    const keys = `/api/v4/projects/${id}/error_tracking/client_keys`;
    expect(await api.delete(keys, { token: t })).toMatchObject({
      status: 400,
      body: { error: 'key_id is missing' },
    });
    const another = await api.post(keys, { token: t });
    expect(await api.delete(keys, { token: t, body: { key_id: fresh.body.id } })).toMatchObject({
      status: 200,
      body: { id: fresh.body.id },
    });
    expect(await api.delete(`${keys}?key_id=${another.body.id}`, { token: t })).toMatchObject({
      status: 200,
      body: { id: another.body.id },
    });
    expect((await api.get(keys, { token: t })).body).toEqual([]);
  });

  it('connects to an external Sentry: lists its projects, then errors, details, stack traces and resolving', async () => {
    const { api, id, path, tokens } = await setup(selfManaged);
    const t = selfManaged.rootToken;
    const connect = (q: string, token = tokens.maintainer) =>
      api.get(`/${path}/-/error_tracking/projects.json?${q}`, { token });
    // Loopback is refused until an admin allows local requests.
    const blocked = await connect(`api_host=${encodeURIComponent(sentry.url)}&token=${sentry.token}`);
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toMatch(/local network/);
    await api.put('/api/v4/application/settings', {
      token: t,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
    expect(
      (await connect(`api_host=${encodeURIComponent(sentry.url)}&token=${sentry.token}`, tokens.developer))
        .status,
    ).toBe(403);
    const projects = await connect(`api_host=${encodeURIComponent(sentry.url)}&token=${sentry.token}`);
    expect(
      projects.body.projects.map(
        (p: { slug: string; organization_slug: string }) => `${p.organization_slug}/${p.slug}`,
      ),
    ).toEqual(['acme/backend', 'acme/frontend']);
    expect(sentry.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/0/projects/',
      auth: `Bearer ${sentry.token}`,
    });
    const saved = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: tokens.maintainer,
      body: {
        active: true,
        integrated: false,
        api_host: sentry.url,
        token: sentry.token,
        project: { slug: 'backend', name: 'Backend', organization_slug: 'acme', organization_name: 'Acme' },
      },
    });
    expect(saved.body).toEqual({
      active: true,
      project_name: 'Backend',
      sentry_external_url: `${sentry.url}/acme/backend/`,
      api_url: `${sentry.url}/api/0/projects/acme/backend/`,
      integrated: false,
      max_attachment_size: 1024 * 1024,
      dropped_items: {},
    });
    // The masked token means "the stored one".
    expect((await connect(`api_host=${encodeURIComponent(sentry.url)}&token=********`)).status).toBe(200);
    const errors = `/api/v4/projects/${id}/error_tracking/errors`;
    const list = await api.get(`${errors}?sort=frequency`, { token: tokens.reporter });
    expect(
      list.body.map((e: { id: number; count: number; user_count: number }) => [e.id, e.count, e.user_count]),
    ).toEqual([
      [1001, 12, 3],
      [1002, 4, 1],
    ]);
    expect(sentry.requests.at(-1)?.path).toBe(
      '/api/0/projects/acme/backend/issues/?query=is%3Aunresolved&limit=20&sort=freq',
    );
    // Sentry pages by cursor: its next cursor comes back in Link, and following it reaches Sentry as is.
    const first = await api.get(`${errors}?sort=frequency&per_page=1`, { token: tokens.reporter });
    expect(first.body.map((e: { id: number }) => e.id)).toEqual([1001]);
    expect(first.headers.get('x-total')).toBeNull();
    expect([first.headers.get('x-page'), first.headers.get('x-next-page')]).toEqual(['1', '2']);
    const links = first.headers.get('link') ?? '';
    expect(links).not.toContain('rel="prev"');
    const next = /<([^>]+)>; rel="next"/.exec(links)?.[1];
    expect(next).toBe(`${selfManaged.url}${errors}?sort=frequency&per_page=1&cursor=0%3A1%3A0`);
    const second = await api.get(next!.slice(selfManaged.url.length), { token: tokens.reporter });
    expect(sentry.requests.at(-1)?.path).toBe(
      '/api/0/projects/acme/backend/issues/?query=is%3Aunresolved&limit=1&sort=freq&cursor=0%3A1%3A0',
    );
    expect(second.body.map((e: { id: number }) => e.id)).toEqual([1002]);
    // Reached by cursor: no page number to report.
    expect(second.headers.get('x-page')).toBeNull();
    const back = second.headers.get('link') ?? '';
    expect(back).not.toContain('rel="next"');
    expect(/<([^>]+)>; rel="prev"/.exec(back)?.[1]).toBe(
      `${selfManaged.url}${errors}?sort=frequency&per_page=1&cursor=0%3A0%3A1`,
    );
    // A page number still works (as Sentry's offset cursor), and a cursor that is not Sentry's is refused.
    expect(
      (await api.get(`${errors}?sort=frequency&per_page=1&page=2`, { token: tokens.reporter })).body.map(
        (e: { id: number }) => e.id,
      ),
    ).toEqual([1002]);
    const sent = sentry.requests.length;
    expect(await api.get(`${errors}?cursor=x%26y`, { token: tokens.reporter })).toMatchObject({
      status: 400,
      body: { error: 'cursor is invalid' },
    });
    expect(sentry.requests.length).toBe(sent);
    const detail = await api.get(`${errors}/1001`, { token: tokens.reporter });
    expect(detail.body).toMatchObject({
      web_url: `${selfManaged.url}/-/ui/projects/${id}/errors/1001`,
      external_url: `${sentry.url}/organizations/acme/issues/1001/`,
      title: 'ZeroDivisionError: division by zero',
      type: 'ZeroDivisionError',
      message: 'division by zero',
      first_release: '1.0.0',
      last_release: '1.2.0',
    });
    // A new host with the masked token does not carry the stored token over: it is cleared, so saving fails.
    const moved = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: tokens.maintainer,
      body: { api_host: 'http://other-sentry.invalid', token: '********' },
    });
    expect(moved).toMatchObject({ status: 400, body: { message: { token: ['is a required field'] } } });
    const trace = await api.get(`${errors}/1001/stack_trace`, { token: tokens.reporter });
    expect(trace.body.stack_trace_entries[0]).toMatchObject({
      filename: 'app/compute.py',
      function: 'divide',
      lineNo: 7,
    });
    const resolved = await api.put(`${errors}/1001`, {
      token: tokens.developer,
      body: { status: 'resolved' },
    });
    expect(resolved.body.status).toBe('resolved');
    expect(
      (await api.get(`${errors}?status=resolved`, { token: tokens.reporter })).body.map(
        (e: { id: number }) => e.id,
      ),
    ).toContain(1001);

    // Error paths, each with a clear message and nothing changed.
    for (const [mode, message] of [
      ['unauthorized', 'Sentry response status code: 401'],
      ['not_found', 'Sentry response status code: 404'],
      ['malformed', 'Sentry API response is malformed'],
      ['slow', 'Connection to Sentry timed out'],
    ] as const) {
      sentry.mode = mode;
      const r = await api.get(errors, { token: tokens.reporter });
      expect(r, mode).toMatchObject({ status: 400, body: { message } });
    }
    sentry.mode = 'missing_keys';
    expect(
      (await connect(`api_host=${encodeURIComponent(sentry.url)}&token=${sentry.token}`)).body.message,
    ).toMatch(/missing keys/);
    sentry.mode = 'ok';
    // A port nothing listens on (port 1 would be refused by fetch itself as a "bad port"): one that was just bound
    // and closed again.
    const closed = await closedPort();
    const refused = await connect(`api_host=${encodeURIComponent(`http://127.0.0.1:${closed}`)}&token=x`);
    expect(refused).toMatchObject({ status: 400, body: { message: 'Connection refused' } });
    await api.put('/api/v4/application/settings', {
      token: t,
      body: { allow_local_requests_from_web_hooks_and_services: false },
    });
  });

  it('answers 404 for settings and the Connect action while the Monitor feature is disabled', async () => {
    const { api, id, path } = await setup(selfManaged);
    await api.put(`/api/v4/projects/${id}`, {
      token: selfManaged.rootToken,
      body: { monitor_access_level: 'disabled' },
    });
    expect(
      (await api.get(`/api/v4/projects/${id}/error_tracking/settings`, { token: selfManaged.rootToken }))
        .status,
    ).toBe(404);
    const r = await api.get(
      `/${path}/-/error_tracking/projects.json?api_host=${encodeURIComponent(sentry.url)}&token=x`,
      {
        token: selfManaged.rootToken,
      },
    );
    expect(r.status).toBe(404);
  });

  it('validates external settings: host, project and token are required', async () => {
    const { api, id } = await setup(selfManaged);
    const r = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: selfManaged.rootToken,
      body: { active: true, integrated: false },
    });
    expect(r).toMatchObject({
      status: 400,
      body: { message: { api_host: ['is a required field'], token: ['is a required field'] } },
    });
    const bad = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: selfManaged.rootToken,
      body: { active: true, integrated: false, api_host: 'ftp://x', token: 'y' },
    });
    expect(bad.status).toBe(400);
  });
});
