import { type ErrorKind, invalidFields, paramError, plainError } from '../errors.js';
import { OutboundError, type OutboundHttp } from '../outbound.js';
import type { PageRequest } from '../pagination.js';
import type { ErrorStatus, StackTrace, TrackedError } from './error-tracking.js';
import type { ErrorSort } from './error-tracking.repository.js';
import type {
  CursorPaged,
  ExternalConnection,
  ExternalErrors,
  ExternalProject,
} from './error-tracking.service.js';
import type { Frame } from './events.js';

const MAX_RESPONSE = 1024 * 1024;

const fail = (message: string, kind: ErrorKind = 'bad_request') => plainError(kind, message);

/** Sentry's slug rule (organizations and projects): lowercase letters, digits, `-` and `_`, not all digits. */
const SLUG = /^(?![0-9]+$)[a-z0-9_-]{1,50}$/;
/** Sentry issue ids are numbers. */
const ISSUE_ID = /^[1-9][0-9]{0,18}$/;

/** An issue id fit for a Sentry API path; 400 otherwise, before any request goes out. */
export function sentryIssueId(id: string): string {
  if (!ISSUE_ID.test(id)) throw paramError('error_id is invalid');
  return id;
}

/** Whether `slug` follows Sentry's slug rules (so it can go into an API path as is). */
export function isSentrySlug(slug: string): boolean {
  return SLUG.test(slug);
}

/**
 * The stored project API URL (`<origin>/api/0/projects/<org>/<project>/`), checked and rebuilt from its parts;
 * 400 when it is not one (never a request to whatever path it holds).
 */
export function sentryProjectApiUrl(apiUrl: string): string {
  let u: URL;
  try {
    u = new URL(apiUrl);
  } catch {
    throw fail('400 Bad request - Error Tracking is not configured');
  }
  const m = /^\/api\/0\/projects\/([^/]+)\/([^/]+)\/?$/.exec(u.pathname);
  const org = m ? safeDecode(m[1]!) : null;
  const project = m ? safeDecode(m[2]!) : null;
  if (
    !org ||
    !project ||
    !isSentrySlug(org) ||
    !isSentrySlug(project) ||
    u.search !== '' ||
    u.username !== ''
  )
    throw fail('400 Bad request - Error Tracking is not configured');
  return `${u.origin}/api/0/projects/${org}/${project}/`;
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * A client of the Sentry web API (the calls GitLab's Sentry client makes), with GitLab's error messages.
 * Requests go through the outbound client: local addresses are refused unless the setting allows them,
 * redirects are not followed. Every path parameter is validated before a request is built.
 */
export class SentryClient implements ExternalErrors {
  constructor(private readonly http: OutboundHttp) {}

  /** Refuses a host the outbound client would refuse (local network), with the Connect action's message. */
  async checkHost(apiHost: string): Promise<void> {
    try {
      await this.http.addresses(new URL(apiHost));
    } catch (err) {
      if (err instanceof OutboundError && err.reason === 'blocked')
        throw invalidFields({ api_host: [`is blocked: ${err.message}`] });
      // An unresolvable host may resolve later (GitLab saves it and fails at request time).
    }
  }

  private async request(
    url: string,
    token: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ body: unknown; link: string }> {
    let res: Awaited<ReturnType<OutboundHttp['request']>>;
    try {
      res = await this.http.request(url, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        maxResponseBytes: MAX_RESPONSE,
      });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      if (err.reason === 'timeout') throw fail('Connection to Sentry timed out');
      if (err.reason === 'connection_refused') throw fail('Connection refused');
      if (err.reason === 'too_large') throw fail('Sentry API response is too big. Limit is 1 MB.');
      if (err.reason === 'blocked' || err.reason === 'unresolvable')
        throw fail(`Error when connecting to Sentry: ${err.message}`);
      throw fail('Error when connecting to Sentry');
    }
    if (res.status < 200 || res.status > 204) throw fail(`Sentry response status code: ${res.status}`);
    const link = res.headers.link;
    try {
      return {
        body: res.body === '' ? null : (JSON.parse(res.body) as unknown),
        link: (Array.isArray(link) ? link.join(', ') : link) ?? '',
      };
    } catch {
      throw fail('Sentry API response is malformed');
    }
  }

  async projects(apiHost: string, token: string): Promise<ExternalProject[]> {
    const { body } = await this.request(`${apiHost}/api/0/projects/`, token);
    if (!Array.isArray(body)) throw fail('Sentry API response is malformed');
    return body.map((p) => {
      const org = p?.organization;
      if (
        typeof p?.name !== 'string' ||
        typeof p?.slug !== 'string' ||
        typeof org?.name !== 'string' ||
        typeof org?.slug !== 'string'
      ) {
        throw fail(
          'Sentry API response is missing keys. key not found: "name", "slug" or "organization"',
          'internal',
        );
      }
      return {
        id: p.id === undefined ? null : String(p.id),
        name: p.name,
        slug: p.slug,
        status: typeof p.status === 'string' ? p.status : null,
        organizationName: org.name,
        organizationSlug: org.slug,
        organizationId: org.id === undefined ? null : String(org.id),
      };
    });
  }

  private static origin(s: ExternalConnection): string {
    return new URL(sentryProjectApiUrl(s.apiUrl)).origin;
  }

  async list(
    s: ExternalConnection,
    f: { status?: ErrorStatus; search?: string },
    sort: ErrorSort,
    page: PageRequest | { cursor: string; perPage: number },
  ): Promise<CursorPaged<TrackedError>> {
    const q = new URLSearchParams();
    q.set('query', `is:${f.status ?? 'unresolved'} ${f.search ?? ''}`.trim());
    q.set('limit', String(page.perPage));
    if (sort === 'frequency') q.set('sort', 'freq');
    else if (sort === 'first_seen') q.set('sort', 'new');
    if ('cursor' in page) q.set('cursor', sentryCursor(page.cursor));
    // A page number becomes Sentry's offset cursor form `0:<offset>:0`.
    else if (page.page > 1) q.set('cursor', `0:${(page.page - 1) * page.perPage}:0`);
    const { body, link } = await this.request(`${sentryProjectApiUrl(s.apiUrl)}issues/?${q}`, s.token);
    if (!Array.isArray(body)) throw fail('Sentry API response is malformed');
    const cursors = linkCursors(link);
    return { items: body.map(toError), nextCursor: cursors.next, prevCursor: cursors.previous };
  }

  async get(s: ExternalConnection, id: string): Promise<TrackedError> {
    const { body } = await this.request(
      `${SentryClient.origin(s)}/api/0/issues/${sentryIssueId(id)}/`,
      s.token,
    );
    return toError(body);
  }

  async stackTrace(s: ExternalConnection, id: string): Promise<StackTrace> {
    const { body } = await this.request(
      `${SentryClient.origin(s)}/api/0/issues/${sentryIssueId(id)}/events/latest/`,
      s.token,
    );
    const e = body as { groupID?: unknown; dateReceived?: unknown; entries?: unknown } | null;
    if (!e || typeof e !== 'object') throw fail('Sentry API response is malformed');
    const entries = Array.isArray(e.entries) ? e.entries : [];
    const exception = entries.find((x: { type?: string }) => x?.type === 'exception');
    const values: { stacktrace?: { frames?: unknown[] } }[] = Array.isArray(exception?.data?.values)
      ? exception.data.values
      : [];
    const withStack = values.find((v) => Array.isArray(v?.stacktrace?.frames));
    const frames = (withStack?.stacktrace?.frames ?? []).map((f) => {
      const x = f as Record<string, unknown>;
      return {
        filename: typeof x.filename === 'string' ? x.filename : null,
        absPath: typeof x.absPath === 'string' ? x.absPath : null,
        function: typeof x.function === 'string' ? x.function : null,
        module: typeof x.module === 'string' ? x.module : null,
        lineNo: typeof x.lineNo === 'number' ? x.lineNo : null,
        colNo: typeof x.colNo === 'number' ? x.colNo : null,
        inApp: typeof x.inApp === 'boolean' ? x.inApp : null,
        context: Array.isArray(x.context) ? (x.context as [number, string][]) : [],
      } satisfies Frame;
    });
    return {
      errorId: String(e.groupID ?? id),
      dateReceived: typeof e.dateReceived === 'string' ? e.dateReceived : new Date(0).toISOString(),
      frames,
    };
  }

  async setStatus(s: ExternalConnection, id: string, status: ErrorStatus): Promise<TrackedError> {
    await this.request(`${SentryClient.origin(s)}/api/0/issues/${sentryIssueId(id)}/`, s.token, {
      method: 'PUT',
      body: { status },
    });
    return this.get(s, id);
  }
}

/** Sentry's cursor: `<value>:<offset>:<is_prev>`; 400 for anything else, before a request goes out. */
const CURSOR = /^-?[0-9]{0,20}(\.[0-9]{1,6})?:[0-9]{1,9}:[01]$/;

export function sentryCursor(cursor: string): string {
  if (!CURSOR.test(cursor)) throw paramError('cursor is invalid');
  return cursor;
}

/**
 * The cursors in Sentry's Link header (`<url>; rel="next"; results="true"; cursor="0:20:0"`): a direction counts
 * only where Sentry says it has results.
 */
export function linkCursors(link: string): { next: string | null; previous: string | null } {
  const found: { next: string | null; previous: string | null } = { next: null, previous: null };
  for (const part of link.split(/,(?=\s*<)/)) {
    const rel = /;\s*rel="(next|previous)"/.exec(part)?.[1] as 'next' | 'previous' | undefined;
    const results = /;\s*results="true"/.test(part);
    const cursor = /;\s*cursor="([^"]*)"/.exec(part)?.[1];
    if (rel && results && cursor && CURSOR.test(cursor)) found[rel] = cursor;
  }
  return found;
}

/** A Sentry issue as an error (GitLab's mapping: id must be numeric). */
function toError(raw: unknown): TrackedError {
  const i = raw as Record<string, unknown> | null;
  if (!i || typeof i !== 'object') throw fail('Sentry API response is malformed');
  if (typeof i.id !== 'string' || !/^\d+$/.test(i.id)) {
    throw fail(
      `Sentry API response contains invalid value for field "id": ${JSON.stringify(i.id)} is not numeric`,
    );
  }
  const metadata = (i.metadata ?? {}) as Record<string, unknown>;
  const release = (r: unknown) =>
    ((r as { version?: unknown } | null)?.version as string | undefined) ?? null;
  return {
    id: Number(i.id),
    projectId: 0,
    title: typeof i.title === 'string' ? i.title : undefined,
    // Sentry's `type` is the generic issue type ("error"); the exception type is in the metadata.
    type: typeof metadata.type === 'string' ? metadata.type : typeof i.type === 'string' ? i.type : 'error',
    message: typeof metadata.value === 'string' ? metadata.value : typeof i.title === 'string' ? i.title : '',
    culprit: typeof i.culprit === 'string' ? i.culprit : '',
    platform: typeof i.platform === 'string' ? i.platform : 'other',
    status: (['resolved', 'ignored'].includes(i.status as string) ? i.status : 'unresolved') as ErrorStatus,
    count: Number(i.count ?? 0),
    userCount: Number(i.userCount ?? 0),
    firstSeen: typeof i.firstSeen === 'string' ? i.firstSeen : new Date(0).toISOString(),
    lastSeen: typeof i.lastSeen === 'string' ? i.lastSeen : new Date(0).toISOString(),
    firstRelease: release(i.firstRelease),
    lastRelease: release(i.lastRelease),
    environment: null,
    tags: {},
    // Sentry's own page of the issue (GitLab shows it as the error's external URL).
    externalUrl: typeof i.permalink === 'string' && /^https?:\/\//.test(i.permalink) ? i.permalink : null,
  };
}
