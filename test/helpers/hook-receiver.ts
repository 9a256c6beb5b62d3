import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from './http.js';
import type { TestServer } from './server.js';

/** One request a hook receiver got. */
export interface ReceivedHook {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

/** A loopback HTTP receiver for webhooks: records requests and answers `status()` (200 unless changed). */
export async function startHookReceiver(): Promise<{
  url: string;
  received: ReceivedHook[];
  status: number;
  close(): Promise<void>;
}> {
  const state = { status: 200 };
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.writeHead(state.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    get status() {
      return state.status;
    },
    set status(v: number) {
      state.status = v;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Lets the server's webhooks reach loopback receivers (off by default: the SSRF guard). */
export async function allowLocalHooks(s: TestServer): Promise<void> {
  const r = await http(s.url).put('/api/v4/application/settings', {
    token: s.rootToken,
    body: { allow_local_requests_from_web_hooks_and_services: true },
  });
  if (r.status !== 200) throw new Error(`could not allow local hooks: ${r.status}`);
}
