import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A contract-faithful fake of the Sentry web API calls svc makes (docs.sentry.io/api: list projects, list a
 * project's issues, retrieve an issue, latest event of an issue, update an issue), as a separate HTTP server
 * on loopback. Bearer-token auth as Sentry's; `mode` makes it misbehave for the error paths.
 */
export interface FakeSentry {
  readonly url: string;
  readonly token: string;
  mode: 'ok' | 'unauthorized' | 'not_found' | 'malformed' | 'missing_keys' | 'slow';
  readonly requests: { method: string; path: string; auth: string | undefined }[];
  stop(): Promise<void>;
}

const ORG = { id: '1', slug: 'acme', name: 'Acme' };

export async function startFakeSentry(): Promise<FakeSentry> {
  const token = 'sntrys_fake_token_0123456789';
  const issues = [
    issue('1001', 'ZeroDivisionError', 'division by zero', 'app.compute', 'unresolved', 12, 3),
    issue('1002', 'KeyError', "'user'", 'app.views.profile', 'unresolved', 4, 1),
    issue('1003', 'TimeoutError', 'db timed out', 'app.db', 'resolved', 2, 2),
  ];
  const state: FakeSentry = {
    url: '',
    token,
    mode: 'ok',
    requests: [],
    stop: () => new Promise((r) => server.close(() => r())),
  };
  // Sentry's issues carry `permalink`, the issue's page in Sentry's UI.
  const withPermalink = (i: (typeof issues)[number]) => ({
    ...i,
    permalink: `${state.url}/organizations/${ORG.slug}/issues/${i.id}/`,
  });
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    state.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      auth: req.headers.authorization,
    });
    if (state.mode === 'slow') return void setTimeout(() => send(res, 200, []), 5000);
    if (state.mode === 'unauthorized' || req.headers.authorization !== `Bearer ${token}`) {
      return send(res, 401, { detail: 'Authentication credentials were not provided.' });
    }
    if (state.mode === 'not_found')
      return send(res, 404, { detail: 'The requested resource does not exist' });
    if (state.mode === 'malformed') return send(res, 200, '<html>not json');
    let body = '';
    req.on('data', (c) => {
      body += String(c);
    });
    req.on('end', () => {
      const p = url.pathname;
      if (req.method === 'GET' && p === '/api/0/projects/') {
        if (state.mode === 'missing_keys') return send(res, 200, [{ id: '2', name: 'Backend' }]);
        return send(res, 200, [
          { id: '2', slug: 'backend', name: 'Backend', status: 'active', organization: ORG },
          { id: '3', slug: 'frontend', name: 'Frontend', status: 'active', organization: ORG },
        ]);
      }
      let m = /^\/api\/0\/projects\/acme\/backend\/issues\/$/.exec(p);
      if (req.method === 'GET' && m) {
        const query = url.searchParams.get('query') ?? '';
        const status = /is:(\w+)/.exec(query)?.[1] ?? 'unresolved';
        const text = query
          .replace(/is:\w+/, '')
          .trim()
          .toLowerCase();
        let list = issues.filter(
          (i) => i.status === status && (!text || i.title.toLowerCase().includes(text)),
        );
        if (url.searchParams.get('sort') === 'freq')
          list = [...list].sort((a, b) => Number(b.count) - Number(a.count));
        const limit = Number(url.searchParams.get('limit') ?? 25);
        // Sentry's cursor `<value>:<offset>:<is_prev>`; its Link names both directions, each with `results`.
        const offset = Number((url.searchParams.get('cursor') ?? '0:0:0').split(':')[1]);
        const page = list.slice(offset, offset + limit).map(withPermalink);
        const more = offset + limit < list.length;
        const prev = Math.max(0, offset - limit);
        const at = (cursor: string) => {
          const q = new URLSearchParams(url.searchParams);
          q.set('cursor', cursor);
          return `${state.url}${p}?${q}`;
        };
        return send(res, 200, page, {
          link: [
            `<${at(`0:${prev}:1`)}>; rel="previous"; results="${offset > 0}"; cursor="0:${prev}:1"`,
            `<${at(`0:${offset + limit}:0`)}>; rel="next"; results="${more}"; cursor="0:${offset + limit}:0"`,
          ].join(', '),
        });
      }
      m = /^\/api\/0\/issues\/(\d+)\/$/.exec(p);
      if (m) {
        const found = issues.find((i) => i.id === m![1]);
        if (!found) return send(res, 404, { detail: 'The requested resource does not exist' });
        if (req.method === 'PUT') {
          const update = JSON.parse(body || '{}') as { status?: string };
          if (update.status) found.status = update.status;
          return send(res, 200, { status: found.status });
        }
        return send(res, 200, withPermalink(found));
      }
      m = /^\/api\/0\/issues\/(\d+)\/events\/latest\/$/.exec(p);
      if (req.method === 'GET' && m) {
        return send(res, 200, {
          id: 'e1',
          groupID: m[1],
          projectID: '2',
          dateReceived: '2026-11-20T10:00:00.000Z',
          entries: [
            {
              type: 'exception',
              data: {
                values: [
                  {
                    type: 'ZeroDivisionError',
                    value: 'division by zero',
                    stacktrace: {
                      frames: [
                        {
                          filename: 'app/compute.py',
                          absPath: '/srv/app/compute.py',
                          function: 'divide',
                          lineNo: 7,
                          colNo: null,
                          inApp: true,
                          context: [
                            [6, 'def divide(a, b):'],
                            [7, '    return a / b'],
                          ],
                        },
                      ],
                    },
                  },
                ],
              },
            },
          ],
        });
      }
      send(res, 404, { detail: 'The requested resource does not exist' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address() as { port: number };
  return Object.assign(state, { url: `http://127.0.0.1:${addr.port}` });
}

function issue(
  id: string,
  type: string,
  value: string,
  culprit: string,
  status: string,
  count: number,
  users: number,
) {
  return {
    id,
    shortId: `BACKEND-${id}`,
    title: `${type}: ${value}`,
    culprit,
    type: 'error',
    metadata: { type, value },
    status,
    count: String(count),
    userCount: users,
    firstSeen: '2026-11-01T00:00:00Z',
    lastSeen: '2026-11-20T10:00:00Z',
    platform: 'python',
    project: { id: '2', name: 'Backend', slug: 'backend' },
    firstRelease: { version: '1.0.0' },
    lastRelease: { version: '1.2.0' },
  };
}
