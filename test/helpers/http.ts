/** A response with the body parsed as JSON when it is JSON. */
export interface Res<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface ReqOpts {
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
}

/** A tiny HTTP client for tests: `http(base).get('/api/v4/user', { token })`. */
export function http(base: string) {
  const call = async <T = any>(method: string, path: string, o: ReqOpts = {}): Promise<Res<T>> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers['PRIVATE-TOKEN'] = o.token;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  };
  return {
    get: <T = any>(path: string, o?: ReqOpts) => call<T>('GET', path, o),
    post: <T = any>(path: string, o?: ReqOpts) => call<T>('POST', path, o),
    put: <T = any>(path: string, o?: ReqOpts) => call<T>('PUT', path, o),
    patch: <T = any>(path: string, o?: ReqOpts) => call<T>('PATCH', path, o),
    delete: <T = any>(path: string, o?: ReqOpts) => call<T>('DELETE', path, o),
  };
}
