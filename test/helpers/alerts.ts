import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { http } from './http.js';

const run = promisify(execFile);

/** Creates an alert integration and returns it (with url and authorization_key). */
export async function createIntegration(
  api: ReturnType<typeof http>,
  token: string,
  projectId: number,
  body: Record<string, unknown>,
): Promise<{ id: number; url: string; authorization_key: string; [k: string]: unknown }> {
  const r = await api.post(`/api/v4/projects/${projectId}/alert_management/integrations`, { token, body });
  if (r.status !== 201) throw new Error(`integration not created: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Posts a payload to a notify URL with a Bearer key. */
export async function notify(
  url: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key !== null && { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Sends with the real curl binary, e.g. with credentials in the URL (`http://:key@host/...`). */
export async function curl(args: string[]): Promise<{ status: number; body: unknown }> {
  const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', ...args]);
  const lines = stdout.split('\n');
  const status = Number(lines.pop());
  const text = lines.join('\n');
  return { status, body: text ? JSON.parse(text) : null };
}

/** A minimal Alertmanager webhook payload (version 4) with the given alerts. */
export function alertmanagerPayload(alerts: Record<string, unknown>[], status = 'firing') {
  return {
    version: '4',
    groupKey: '{}:{alertname="x"}',
    truncatedAlerts: 0,
    status,
    receiver: 'svc',
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example:9093',
    alerts,
  };
}
