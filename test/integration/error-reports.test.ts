import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import {
  clientEnv,
  createSentryProject,
  missingRuntime,
  REPO_ROOT,
  runClient,
  type SentryProject,
} from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// What SDKs and browsers send besides error events: user feedback (the new SDKs' feedback items, user_report
// items, the error page form), attachments within the project's limit, security reports, and the counts of what
// svc does not keep. Real SDKs run as child processes (their global state stays out of the test process).

const python = missingRuntime(
  ['/usr/bin/python3', '/usr/lib/python3/dist-packages/sentry_sdk/__init__.py'],
  'python3-sentry-sdk',
);

interface ErrorJson {
  id: number;
  title: string;
  type: string;
  message: string;
  culprit: string;
}

describe.each(await databases())('error feedback, attachments and security reports (%s)', (database) => {
  let s: TestServer;
  let n = 0;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const api = () => http(s.url);
  const newProject = (): Promise<SentryProject> => createSentryProject(s.url, s.rootToken, `reports-${++n}`);
  const base = (p: SentryProject) => `/api/v4/projects/${p.id}/error_tracking`;
  const collector = (p: SentryProject) => `${s.url}/api/v4/error_tracking/collector/api/${p.id}`;
  const get = async <T>(path: string, token = s.rootToken): Promise<T> => {
    const r = await api().get<T>(path, { token });
    expect(r.status, `GET ${path}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  };
  const errors = (p: SentryProject) => get<ErrorJson[]>(`${base(p)}/errors?per_page=100`);
  const settings = (p: SentryProject) =>
    get<{ max_attachment_size: number; dropped_items: Record<string, number> }>(`${base(p)}/settings`);

  it('@sentry/node: feedback about an event, its attachments, one over the limit dropped and counted, its span counted', async () => {
    const p = await newProject();
    expect((await settings(p)).max_attachment_size).toBe(1024 * 1024);
    const put = await api().put(`${base(p)}/settings`, {
      token: s.rootToken,
      body: { max_attachment_size: 1000 },
    });
    expect(put.body).toMatchObject({ max_attachment_size: 1000, dropped_items: {} });
    const bad = await api().put(`${base(p)}/settings`, {
      token: s.rootToken,
      body: { max_attachment_size: 0 },
    });
    expect(bad.status).toBe(400);
    expect((await settings(p)).max_attachment_size).toBe(1000);

    const run = await runClient(process.execPath, ['node-feedback.mjs', p.dsn, '5000'], {
      cwd: `${REPO_ROOT}test/e2e/sentry`,
      env: clientEnv(),
    });
    expect(run.code, run.summary).toBe(0);
    expect(
      run.sends.filter((x) => x.status !== 200),
      run.summary,
    ).toEqual([]);
    const eventId = /EVENT (\w+)/.exec(run.stdout)![1]!;

    const [error] = await until(async () => {
      const list = await errors(p);
      return list.length === 1 ? list : null;
    }, 'the error');
    expect(error).toMatchObject({ type: 'TypeError', message: 'card declined' });

    const feedback = await until(async () => {
      const f = await get<Record<string, unknown>[]>(`${base(p)}/errors/${error!.id}/feedback`);
      return f.length === 1 ? f : null;
    }, 'the feedback');
    expect(feedback[0]).toMatchObject({
      event_id: eventId,
      source: 'feedback',
      name: 'Jane Doe',
      email: 'jane@example.com',
      comments: 'The checkout button did nothing',
      url: 'https://shop.example/checkout',
    });
    expect(await get(`${base(p)}/feedback`)).toEqual(feedback);

    const attachments = await get<Record<string, unknown>[]>(
      `${base(p)}/errors/${error!.id}/events/${eventId}/attachments`,
    );
    expect(attachments).toEqual([
      expect.objectContaining({
        event_id: eventId,
        filename: 'cart.json',
        content_type: 'application/json',
        attachment_type: 'event.attachment',
        size: 11,
      }),
    ]);
    const download = await fetch(
      `${s.url}${base(p)}/errors/${error!.id}/events/${eventId}/attachments/${attachments[0]!.id}`,
      { headers: { 'PRIVATE-TOKEN': s.rootToken } },
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('attachment; filename="cart.json"');
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(await download.text()).toBe('{"items":3}');

    const dropped = (await settings(p)).dropped_items;
    expect(dropped.attachment).toBe(1);
    // @sentry/node 11 sends its root span as a `span` item (span streaming), not a transaction.
    expect(
      run.sends.some((x) => x.types?.includes('span')),
      run.summary,
    ).toBe(true);
    expect(dropped.span ?? 0, `${JSON.stringify(dropped)}\n${run.summary}`).toBeGreaterThanOrEqual(1);
  });

  it.skipIf(python !== null && !process.env.CI)(
    "Debian's python3-sentry-sdk: an attachment, and a user_report about the event",
    async () => {
      if (python) throw new Error(`required in CI: ${python}`);
      const p = await newProject();
      const run = await runClient('/usr/bin/python3', ['python-feedback.py', p.dsn], {
        cwd: `${REPO_ROOT}test/e2e/sentry`,
      });
      expect(run.code, run.summary).toBe(0);
      const eventId = /EVENT (\w+)/.exec(run.stdout)![1]!;
      const [error] = await until(async () => {
        const list = await errors(p);
        return list.length === 1 ? list : null;
      }, 'the error');
      expect(error!.type).toBe('KeyError');
      const feedback = await until(async () => {
        const f = await get<Record<string, unknown>[]>(`${base(p)}/errors/${error!.id}/feedback`);
        return f.length === 1 ? f : null;
      }, 'the user report');
      expect(feedback[0]).toMatchObject({
        event_id: eventId,
        source: 'user_report',
        name: 'Py User',
        email: 'py@example.com',
        comments: 'it crashed',
      });
      const attachments = await get<{ id: number; filename: string }[]>(
        `${base(p)}/errors/${error!.id}/events/${eventId}/attachments`,
      );
      expect(attachments.map((a) => a.filename)).toEqual(['py.log']);
      const download = await fetch(
        `${s.url}${base(p)}/errors/${error!.id}/events/${eventId}/attachments/${attachments[0]!.id}`,
        { headers: { 'PRIVATE-TOKEN': s.rootToken } },
      );
      expect(await download.text()).toBe('python says hello');
    },
  );

  /** Stores one event through the store endpoint and returns its id and its error. */
  async function storeEvent(p: SentryProject, type = 'Error') {
    const eventId = randomUUID().replace(/-/g, '');
    const r = await fetch(`${collector(p)}/store/?sentry_key=${p.publicKey}`, {
      method: 'POST',
      body: JSON.stringify({ event_id: eventId, exception: { values: [{ type, value: 'boom' }] } }),
    });
    expect(r.status).toBe(200);
    const error = (await errors(p)).find((e) => e.type === type)!;
    return { eventId, error };
  }

  it("the error page form (showReportDialog's POST) stores feedback about the event; bad input changes nothing", async () => {
    const p = await newProject();
    const { eventId, error } = await storeEvent(p);
    const page = (q: Record<string, string>) =>
      `${s.url}/api/v4/error_tracking/collector/api/embed/error-page/?${new URLSearchParams(q)}`;
    const post = (q: Record<string, string>, form: Record<string, string>) =>
      fetch(page(q), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
      });
    const form = { name: 'Ann', email: 'ann@example.com', comments: 'I clicked save' };

    const missing = await post({ dsn: p.dsn, eventId }, { name: 'Ann', comments: 'x' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ errors: { email: ['This field is required.'] } });
    const invalid = await post({ dsn: p.dsn, eventId }, { ...form, email: 'not an address' });
    expect(await invalid.json()).toEqual({ errors: { email: ['Enter a valid email address.'] } });
    expect((await post({ dsn: p.dsn, eventId: 'nope' }, form)).status).toBe(400);
    const wrongKey = p.dsn.replace(p.publicKey, 'glet_0000000000000000000000000000dead');
    expect((await post({ dsn: wrongKey, eventId }, form)).status).toBe(404);
    expect(await get(`${base(p)}/feedback`)).toEqual([]);

    const ok = await post({ dsn: p.dsn, eventId }, form);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({});
    expect(await get(`${base(p)}/errors/${error.id}/feedback`)).toEqual([
      expect.objectContaining({ event_id: eventId, source: 'error_page', ...form }),
    ]);
  });

  it('user_report and feedback items arrive in any order; attachments without an event or over the limit are counted', async () => {
    const p = await newProject();
    const eventId = randomUUID().replace(/-/g, '');
    const envelope = (header: object, ...items: [object, string][]) =>
      [JSON.stringify(header), ...items.flatMap(([h, body]) => [JSON.stringify(h), body])].join('\n');
    const send = (body: string) =>
      fetch(`${collector(p)}/envelope/?sentry_key=${p.publicKey}`, { method: 'POST', body });
    // The report first, its event after: the report is linked when read.
    const report = JSON.stringify({
      event_id: eventId,
      name: 'R',
      email: 'r@example.com',
      comments: 'first',
    });
    expect((await send(envelope({ event_id: eventId }, [{ type: 'user_report' }, report]))).status).toBe(200);
    const payload = 'attached text';
    const r = await send(
      envelope(
        { event_id: eventId },
        [{ type: 'event' }, JSON.stringify({ exception: { values: [{ type: 'LateError', value: 'x' }] } })],
        [{ type: 'attachment', length: payload.length, filename: '../../etc/notes.txt' }, payload],
        [{ type: 'replay_event' }, '{}'],
        [{ type: 'span' }, '{}'],
        [{ type: 'transaction' }, '{"type": "transaction"}'],
        [{ type: 'user_report' }, '{"comments": "no event id"}'],
        [
          { type: 'client_report' },
          JSON.stringify({
            discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 4 }],
          }),
        ],
      ),
    );
    expect(r.status).toBe(200);
    const [error] = await errors(p);
    expect((await get<unknown[]>(`${base(p)}/errors/${error!.id}/feedback`)).length).toBe(1);
    const [a] = await get<{ filename: string; size: number }[]>(
      `${base(p)}/errors/${error!.id}/events/${eventId}/attachments`,
    );
    expect(a).toMatchObject({ filename: 'notes.txt', size: payload.length });
    // An attachment in an envelope with no event id has nothing to belong to.
    expect((await send(envelope({}, [{ type: 'attachment', filename: 'x' }, 'loose']))).status).toBe(200);
    expect((await settings(p)).dropped_items).toEqual({
      attachment: 1,
      client_report: 1,
      'discarded:error': 4,
      invalid_user_report: 1,
      replay_event: 1,
      span: 1,
      transaction: 1,
    });
  });

  // MDN's examples: Content-Security-Policy report-uri (CSP level 2) and the Reporting API's csp-violation.
  const MDN_CSP_REPORT = {
    'csp-report': {
      'blocked-uri': 'http://example.com/css/style.css',
      disposition: 'report',
      'document-uri': 'http://example.com/signup.html',
      'effective-directive': 'style-src-elem',
      'original-policy': "default-src 'none'; style-src cdn.example.com; report-uri /_/csp-reports",
      referrer: '',
      'status-code': 200,
      'violated-directive': 'style-src-elem',
    },
  };
  const MDN_REPORTS = [
    {
      age: 53531,
      body: {
        blockedURL: 'https://evil.com/tracker.js',
        columnNumber: 39,
        disposition: 'enforce',
        documentURL: 'https://example.com/csp-report',
        effectiveDirective: 'script-src-elem',
        lineNumber: 121,
        originalPolicy: "default-src 'self'; report-to csp-endpoint-name",
        referrer: 'https://www.google.com/',
        sample: '',
        sourceFile: 'https://example.com/csp-report',
        statusCode: 200,
      },
      type: 'csp-violation',
      url: 'https://example.com/csp-report',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
    },
    {
      age: 10,
      body: { id: 'NavigatorGetUserMedia', message: 'deprecated' },
      type: 'deprecation',
      url: 'https://example.com/',
      user_agent: 'Mozilla/5.0',
    },
  ];

  it('security reports (CSP level 2, Reporting API, Expect-CT, HPKP) become errors of their own kind', async () => {
    const p = await newProject();
    const report = (body: unknown, type: string, key = p.publicKey) =>
      fetch(`${collector(p)}/security/?sentry_key=${key}&sentry_environment=prod`, {
        method: 'POST',
        headers: { 'content-type': type, 'user-agent': 'Mozilla/5.0 test' },
        body: JSON.stringify(body),
      });
    expect((await report(MDN_CSP_REPORT, 'application/csp-report')).status).toBe(200);
    expect((await report(MDN_REPORTS, 'application/reports+json')).status).toBe(200);
    expect(
      (
        await report(
          { 'expect-ct-report': { hostname: 'www.example.com', port: 443 } },
          'application/expect-ct-report+json',
        )
      ).status,
    ).toBe(200);
    expect(
      (await report({ hostname: 'www.example.com', port: 443, 'known-pins': [] }, 'application/json')).status,
    ).toBe(200);
    // Refused, nothing stored: another media type, an unknown body, an unknown key.
    expect((await report(MDN_CSP_REPORT, 'text/plain')).status).toBe(415);
    const unknown = await report({ hello: 1 }, 'application/json');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ message: '400 Bad request - unsupported security report' });
    expect((await report(MDN_CSP_REPORT, 'application/csp-report', 'glet_nope')).status).toBe(404);

    const list = await errors(p);
    expect(list.map((e) => [e.type, e.title]).sort()).toEqual([
      ['csp', "Blocked 'script' from 'evil.com'"],
      ['csp', "Blocked 'style' from 'example.com'"],
      ['expectct', "Expect-CT failed for 'www.example.com'"],
      ['hpkp', "Public key pinning validation failed for 'www.example.com'"],
    ]);
    const style = list.find((e) => e.title.includes("'style'"))!;
    expect(style.culprit).toBe('style-src-elem');
    const [event] = await get<{ event_id: string }[]>(`${base(p)}/errors/${style.id}/events`);
    const detail = await get<{ payload: Record<string, unknown>; environment: string }>(
      `${base(p)}/errors/${style.id}/events/${event!.event_id}`,
    );
    expect(detail.payload).toMatchObject({
      csp: { effective_directive: 'style-src-elem', blocked_uri: 'http://example.com/css/style.css' },
      request: { url: 'http://example.com/signup.html' },
    });
    expect(detail.environment).toBe('prod');
    expect((await settings(p)).dropped_items).toEqual({ 'report:deprecation': 1 });
  });

  it('attachments are read by Reporters and above; Guests get 403, others 404', async () => {
    const p = await newProject();
    const { eventId, error } = await storeEvent(p);
    const body = [
      JSON.stringify({ event_id: eventId }),
      JSON.stringify({ type: 'attachment', filename: 'secret.txt' }),
      'secret',
    ].join('\n');
    await fetch(`${collector(p)}/envelope/?sentry_key=${p.publicKey}`, { method: 'POST', body });
    const list = `${base(p)}/errors/${error.id}/events/${eventId}/attachments`;
    const [a] = await get<{ id: number }[]>(list);
    const one = `${list}/${a!.id}`;
    const user = async (name: string, level?: number) => {
      const u = await api().post('/api/v4/users', {
        token: s.rootToken,
        body: { username: `${name}-${n}`, name, email: `${name}-${n}@example.com`, password: 'password-123' },
      });
      if (level)
        await api().post(`/api/v4/projects/${p.id}/members`, {
          token: s.rootToken,
          body: { user_id: u.body.id, access_level: level },
        });
      const t = await api().post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      });
      return t.body.token as string;
    };
    const reporter = await user('reporter', 20);
    const guest = await user('guest', 10);
    const stranger = await user('stranger');
    const status = async (path: string, token?: string) =>
      (await fetch(`${s.url}${path}`, token ? { headers: { 'PRIVATE-TOKEN': token } } : {})).status;
    for (const path of [list, one, `${base(p)}/errors/${error.id}/feedback`]) {
      expect(await status(path, reporter), path).toBe(200);
      expect(await status(path, guest), path).toBe(403);
      expect(await status(path, stranger), path).toBe(404);
      expect(await status(path), path).toBe(404);
    }
    const res = await fetch(`${s.url}${one}`, { headers: { 'PRIVATE-TOKEN': reporter } });
    expect(await res.text()).toBe('secret');
    expect(await status(`${list}/999999`, reporter)).toBe(404);
    expect(await status(`${base(p)}/errors/${error.id}/events/${'f'.repeat(32)}/attachments`, reporter)).toBe(
      404,
    );
  });
});
