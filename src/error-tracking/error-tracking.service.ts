import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Offering } from '../config.js';
import type { Cipher } from '../crypto.js';
import { badRequest, forbidden, invalidFields, notFound } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { SettingsService } from '../settings/settings.service.js';
import { type Bucket, bucketWindow, type StatsPeriod } from '../time-buckets.js';
import type { User } from '../users/users.js';
import type {
  ClientKey,
  ErrorEvent,
  ErrorHash,
  ErrorStatus,
  ErrorTrackingSettings,
  StackTrace,
  TrackedError,
} from './error-tracking.js';
import type { ErrorSort, ErrorTrackingRepository } from './error-tracking.repository.js';
import { normalizeEvent, stackFrames } from './events.js';
import { isSentrySlug } from './sentry-client.js';

const INTEGRATED_FLAG = 'integrated_error_tracking';

/** Reads errors from the external Sentry (implemented by the Sentry API client). */
export interface ExternalErrors {
  list(
    s: ExternalConnection,
    f: { status?: ErrorStatus; search?: string },
    sort: ErrorSort,
    page: PageRequest | { cursor: string; perPage: number },
  ): Promise<CursorPaged<TrackedError>>;
  get(s: ExternalConnection, id: string): Promise<TrackedError>;
  stackTrace(s: ExternalConnection, id: string): Promise<StackTrace>;
  setStatus(s: ExternalConnection, id: string, status: ErrorStatus): Promise<TrackedError>;
  projects(apiHost: string, token: string): Promise<ExternalProject[]>;
  /** 400 when requests to this host would be refused (local network while local requests are not allowed). */
  checkHost(apiHost: string): Promise<void>;
}

/**
 * A page of an external list that pages by cursor (Sentry): no total, only the cursors of the pages around it,
 * null when the backend says there are no results that way.
 */
export interface CursorPaged<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
  readonly prevCursor: string | null;
}

export interface ExternalConnection {
  readonly apiUrl: string;
  readonly token: string;
}

export interface ExternalProject {
  readonly id: string | null;
  readonly name: string;
  readonly slug: string;
  readonly status: string | null;
  readonly organizationName: string;
  readonly organizationSlug: string;
  readonly organizationId: string | null;
}

export interface SettingsInput {
  active?: boolean;
  integrated?: boolean;
  apiHost?: string | null;
  token?: string | null;
  /** The external project chosen from the Connect list: `<organization slug>/<project slug>`. */
  project?: { slug: string; name: string; organizationSlug: string; organizationName: string } | null;
}

const DISABLED: ErrorTrackingSettings = {
  enabled: false,
  integrated: false,
  apiUrl: null,
  hasToken: false,
  projectName: null,
  organizationName: null,
};

/** Most errors one merge takes (a page of the list). */
const MAX_MERGE = 100;

/** `glet_` + 32 hex characters, as GitLab's client keys. */
const newPublicKey = () => `glet_${randomBytes(16).toString('hex')}`;

/** Error tracking settings, client keys and the error views (integrated or external backend). */
export class ErrorTrackingService {
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: ErrorTrackingRepository,
    private readonly access: Access,
    private readonly settingsService: SettingsService,
    private readonly external: ExternalErrors,
    private readonly cipher: Cipher,
    private readonly offering: Offering,
    private readonly clock: Clock,
  ) {}

  /** An error by project and id, for work the system does on its own (notifications): no caller to check. */
  errorForSystem(projectId: number, id: number): Promise<TrackedError | null> {
    return this.repo.error(projectId, id);
  }

  /** Registers a function called after settings or keys change (the collector's cache clears itself). */
  onChange(fn: () => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  private async changed(): Promise<void> {
    await Promise.all(this.listeners.map((fn) => fn()));
  }

  /** Whether the integrated backend is available to a project: the hosted offering, or the admin's flag. */
  async integratedAvailable(projectId: number): Promise<boolean> {
    return this.offering === 'hosted' || (await this.settingsService.isEnabled(INTEGRATED_FLAG, projectId));
  }

  /** The project for a caller with at least `level`; 404 when its Monitor feature is disabled (spec, Errors table). */
  async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    const { project } = await this.access.project(actor, idOrPath, level);
    if (!project.monitorEnabled) throw notFound();
    return project;
  }

  /**
   * The saved settings (Maintainer). A project that never saved any has none: 404 `Error Tracking Setting Not
   * Found`, as GitLab answers, rather than made-up defaults.
   */
  async settings(
    actor: User | null,
    idOrPath: string,
  ): Promise<{ project: Project; settings: ErrorTrackingSettings; integratedAvailable: boolean }> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const stored = await this.repo.settings(project.id);
    if (!stored) throw notFound('Error Tracking Setting');
    return { project, settings: stored, integratedAvailable: await this.integratedAvailable(project.id) };
  }

  /**
   * GitLab's PATCH: turns saved settings on or off (and the backend, when given); 404 while nothing is saved,
   * since there is nothing configured to enable.
   */
  async toggleSettings(actor: User | null, idOrPath: string, active: boolean, integrated?: boolean) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    if (!(await this.repo.settings(project.id))) throw notFound('Error Tracking Setting');
    return this.updateSettings(actor, idOrPath, { active, integrated });
  }

  /** Saves settings (Maintainer). Enabling the integrated backend creates a first client key if none exists. */
  async updateSettings(actor: User | null, idOrPath: string, input: SettingsInput) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const current = (await this.repo.settings(project.id)) ?? { ...DISABLED, tokenEncrypted: null };
    const enabled = input.active ?? current.enabled;
    const integrated = input.integrated ?? current.integrated;
    if (enabled && integrated && !(await this.integratedAvailable(project.id))) {
      throw forbidden(
        `Integrated error tracking is available on the hosted offering; on self-managed an administrator must enable the feature flag ${INTEGRATED_FLAG}`,
      );
    }
    let apiUrl = current.apiUrl;
    let tokenEncrypted = current.tokenEncrypted;
    let projectName = current.projectName;
    let organizationName = current.organizationName;
    const masked = typeof input.token === 'string' && /^\*+$/.test(input.token);
    if (input.apiHost !== undefined) {
      const host = input.apiHost === null ? null : normalizeHost(input.apiHost);
      if (host !== null) await this.external.checkHost(host);
      // A new host without a new token clears the token (GitLab): the stored token never goes to another host,
      // not even when the form sends it back masked.
      if (host !== originOf(apiUrl) && (input.token === undefined || masked)) tokenEncrypted = null;
      apiUrl =
        host === null
          ? null
          : input.project
            ? projectApiUrl(host, input.project.organizationSlug, input.project.slug)
            : apiUrl && originOf(apiUrl) === host
              ? apiUrl
              : `${host}/api/0/projects/`;
    }
    if (input.project) {
      if (!isSentrySlug(input.project.organizationSlug) || !isSentrySlug(input.project.slug)) {
        throw invalidFields({
          project: ['slug and organization_slug must be Sentry slugs (lowercase letters, digits, - and _)'],
        });
      }
      const host = originOf(apiUrl);
      if (!host) throw invalidFields({ api_host: ['is a required field'] });
      apiUrl = projectApiUrl(host, input.project.organizationSlug, input.project.slug);
      projectName = input.project.name;
      organizationName = input.project.organizationName;
    }
    if (input.token !== undefined && input.token !== null && !masked) {
      tokenEncrypted = input.token === '' ? null : this.cipher.encrypt(input.token);
    }
    if (enabled && !integrated) {
      const errors: Record<string, string[]> = {};
      if (!apiUrl) errors.api_host = ['is a required field'];
      else if (!/\/api\/0\/projects\/[^/]+\/[^/]+\/?$/.test(apiUrl)) errors.project = ['is a required field'];
      if (!tokenEncrypted) errors.token = ['is a required field'];
      if (Object.keys(errors).length > 0) throw invalidFields(errors);
    }
    await this.repo.putSettings(
      project.id,
      { enabled, integrated, apiUrl, tokenEncrypted, projectName, organizationName },
      this.clock.now().toISOString(),
    );
    if (enabled && integrated && !(await this.repo.keys(project.id)).some((k) => k.active)) {
      await this.repo.insertKey(project.id, newPublicKey(), this.clock.now().toISOString());
    }
    await this.changed();
    return this.settings(actor, idOrPath);
  }

  // Client keys (Maintainer)

  async keys(actor: User | null, idOrPath: string): Promise<{ project: Project; keys: ClientKey[] }> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    return { project, keys: await this.repo.keys(project.id) };
  }

  async createKey(actor: User | null, idOrPath: string): Promise<{ project: Project; key: ClientKey }> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    await this.repo.insertKey(project.id, newPublicKey(), this.clock.now().toISOString());
    const keys = await this.repo.keys(project.id);
    await this.changed();
    return { project, key: keys[keys.length - 1]! };
  }

  async deleteKey(
    actor: User | null,
    idOrPath: string,
    keyId: number,
  ): Promise<{ project: Project; key: ClientKey }> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const key = (await this.repo.keys(project.id)).find((k) => k.id === keyId);
    if (!key) throw notFound('Client Key');
    await this.repo.deleteKey(project.id, keyId);
    await this.changed();
    return { project, key };
  }

  // Errors (Reporter reads, Developer changes status), from the backend the settings choose

  private async backend(actor: User | null, idOrPath: string, level: number) {
    const project = await this.project(actor, idOrPath, level);
    const s = await this.repo.settings(project.id);
    if (!s?.enabled) throw badRequest('Error Tracking is not enabled');
    if (s.integrated) return { project, external: null };
    if (!s.apiUrl || !s.tokenEncrypted) throw badRequest('Error Tracking is not configured');
    return { project, external: { apiUrl: s.apiUrl, token: this.cipher.decrypt(s.tokenEncrypted) } };
  }

  /**
   * Errors of the project. The integrated backend pages by offset with a total; an external Sentry pages by
   * cursor and gives no total, so its page says which cursors come before and after it. `cursor` (a Sentry
   * cursor from a previous page) only means something to an external backend.
   */
  async list(
    actor: User | null,
    idOrPath: string,
    f: { status?: ErrorStatus; search?: string },
    sort: ErrorSort,
    page: PageRequest,
    cursor?: string,
  ): Promise<
    | ({ readonly kind: 'offset' } & Paged<TrackedError>)
    | ({ readonly kind: 'cursor' } & CursorPaged<TrackedError>)
  > {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (!external) return { kind: 'offset', ...(await this.repo.list(project.id, f, sort, page)) };
    const result = await this.external.list(
      external,
      f,
      sort,
      cursor === undefined ? page : { cursor, perPage: page.perPage },
    );
    return { kind: 'cursor', ...result, items: result.items.map((e) => ({ ...e, projectId: project.id })) };
  }

  async get(actor: User | null, idOrPath: string, errorId: string): Promise<TrackedError> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) return { ...(await this.external.get(external, errorId)), projectId: project.id };
    return this.integratedError(project.id, errorId);
  }

  /**
   * `get`, with the caller's level in the project and, for the integrated backend, the error's latest event (what
   * the error page derives more from, such as its suspect commit); an external backend's error has none here.
   */
  async getWithLatestEvent(
    actor: User | null,
    idOrPath: string,
    errorId: string,
  ): Promise<{ project: Project; level: number; error: TrackedError; latest: ErrorEvent | null }> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    const level = await this.access.projectLevel(actor, project);
    if (external) {
      const error = { ...(await this.external.get(external, errorId)), projectId: project.id };
      return { project, level, error, latest: null };
    }
    const error = await this.integratedError(project.id, errorId);
    return { project, level, error, latest: await this.repo.latestEvent(error.id) };
  }

  private async integratedError(projectId: number, errorId: string): Promise<TrackedError> {
    // Ids are PostgreSQL integers: a larger number names no error (404), not a database range error.
    const id = /^\d{1,10}$/.test(errorId) ? Number(errorId) : Number.NaN;
    const e = id <= 2_147_483_647 ? await this.repo.error(projectId, id) : null;
    if (!e) throw notFound('Error');
    return e;
  }

  async events(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    page: PageRequest,
  ): Promise<Paged<ErrorEvent>> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Event lists are only kept by the integrated backend');
    const e = await this.integratedError(project.id, errorId);
    return this.repo.events(e.id, e.count, page);
  }

  /** Errors per status (the list's tabs); the integrated backend only (an external one has no counts API). */
  async counts(actor: User | null, idOrPath: string): Promise<Record<ErrorStatus | 'all', number>> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Error counts are only kept by the integrated backend');
    const c = await this.repo.counts(project.id);
    return { ...c, all: c.unresolved + c.resolved + c.ignored };
  }

  /**
   * Events over time of the errors `errorIds` (their ids; others of the project or unknown: 404), bucketed by the
   * database: hourly for `24h`, daily for `30d`.
   */
  async stats(
    actor: User | null,
    idOrPath: string,
    errorIds: readonly string[],
    period: StatsPeriod,
  ): Promise<{ errorId: number; period: StatsPeriod; interval: string; buckets: Bucket[] }[]> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Event statistics are only kept by the integrated backend');
    const ids = [...new Set(errorIds)];
    const errors = await Promise.all(ids.map((id) => this.integratedError(project.id, id)));
    const window = bucketWindow(period, this.clock.now());
    const stats = await this.repo.stats(
      errors.map((e) => e.id),
      window,
    );
    return errors.map((e) => ({
      errorId: e.id,
      period,
      interval: window.interval,
      buckets: stats.get(e.id) ?? [],
    }));
  }

  /** One event with its whole stored payload and the ids of the events before and after it. */
  async event(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    eventId: string,
  ): Promise<{ event: ErrorEvent; previous: string | null; next: string | null }> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Events are only kept by the integrated backend');
    const e = await this.integratedError(project.id, errorId);
    const event = await this.repo.event(e.id, eventId);
    if (!event) throw notFound('Event');
    return { event, ...(await this.repo.neighbours(event)) };
  }

  async stackTrace(actor: User | null, idOrPath: string, errorId: string): Promise<StackTrace> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) return this.external.stackTrace(external, errorId);
    const e = await this.integratedError(project.id, errorId);
    const latest = await this.repo.latestEvent(e.id);
    return {
      errorId: e.id,
      dateReceived: latest?.occurredAt ?? e.lastSeen,
      frames: latest ? stackFrames(latest.payload) : [],
    };
  }

  async setStatus(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    status: ErrorStatus,
  ): Promise<TrackedError> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Developer);
    if (external)
      return { ...(await this.external.setStatus(external, errorId, status)), projectId: project.id };
    const e = await this.integratedError(project.id, errorId);
    await this.repo.setStatus(e.id, status, this.clock.now().toISOString());
    return this.integratedError(project.id, errorId);
  }

  /** The grouping hashes of an error (Reporter; integrated backend): what unmerge can move out. */
  async hashes(
    actor: User | null,
    idOrPath: string,
    errorId: string,
  ): Promise<{ error: TrackedError; hashes: ErrorHash[] }> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Grouping hashes are only kept by the integrated backend');
    const error = await this.integratedError(project.id, errorId);
    return { error, hashes: await this.repo.hashes(error.id) };
  }

  /**
   * Merges errors by hand (Developer): the one with the most events (on a tie the oldest) takes the others' events
   * and hashes, so their later events land in it too; the others are deleted. Returns it and the ids merged into it.
   */
  async merge(
    actor: User | null,
    idOrPath: string,
    errorIds: readonly string[],
  ): Promise<{ error: TrackedError; merged: number[] }> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Developer);
    if (external) throw badRequest('Only errors of the integrated backend can be merged');
    const ids = [...new Set(errorIds)];
    if (ids.length < 2) throw invalidFields({ error_ids: ['must name at least two different errors'] });
    if (ids.length > MAX_MERGE) throw invalidFields({ error_ids: [`must name at most ${MAX_MERGE} errors`] });
    const errors = await Promise.all(ids.map((id) => this.integratedError(project.id, id)));
    const [target, ...sources] = [...errors].sort((a, b) => b.count - a.count || a.id - b.id);
    await this.repo.merge(
      target!.id,
      sources.map((e) => e.id),
      this.clock.now().toISOString(),
    );
    return {
      error: await this.integratedError(project.id, String(target!.id)),
      merged: sources.map((e) => e.id),
    };
  }

  /**
   * Unmerges (Developer): the error's hashes `hashes`, and the events they brought, become a new error. The error
   * keeps at least one hash. Returns the new error.
   */
  async unmerge(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    hashes: readonly string[],
  ): Promise<TrackedError> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Developer);
    if (external) throw badRequest('Only errors of the integrated backend can be unmerged');
    const error = await this.integratedError(project.id, errorId);
    const wanted = [...new Set(hashes)];
    if (wanted.length === 0) throw invalidFields({ hashes: ['must name at least one hash of the error'] });
    const own = new Set((await this.repo.hashes(error.id)).map((h) => h.hash));
    const unknown = wanted.filter((h) => !own.has(h));
    if (unknown.length > 0)
      throw invalidFields({ hashes: [`are not hashes of this error: ${unknown.slice(0, 5).join(', ')}`] });
    if (wanted.length >= own.size)
      throw invalidFields({ hashes: ['must leave the error at least one of its hashes'] });
    const now = this.clock.now();
    const id = await this.repo.unmerge(project.id, error.id, wanted, now.toISOString(), (payload) => {
      const e = normalizeEvent(payload, { now, clientIp: null });
      return { type: e.type, message: e.message, culprit: e.culprit, platform: e.platform };
    });
    return this.integratedError(project.id, String(id));
  }

  /** The Connect action: lists the external system's projects with a host and token (Maintainer). */
  async externalProjects(
    actor: User | null,
    idOrPath: string,
    apiHost: string,
    token: string,
  ): Promise<ExternalProject[]> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const host = normalizeHost(apiHost);
    let useToken = token;
    if (/^\*+$/.test(token)) {
      // A masked token means "the stored one", valid only for the stored host.
      const s = await this.repo.settings(project.id);
      if (!s?.tokenEncrypted || originOf(s.apiUrl) !== host)
        throw invalidFields({ token: ['is a required field'] });
      useToken = this.cipher.decrypt(s.tokenEncrypted);
    }
    if (!useToken) throw invalidFields({ token: ['is a required field'] });
    return this.external.projects(host, useToken);
  }

  async sessions(actor: User | null, idOrPath: string) {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    return this.repo.sessions(project.id);
  }
}

/** An http(s) origin, without a trailing slash; 400 otherwise. */
export function normalizeHost(v: string): string {
  try {
    const u = new URL(v.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    return u.origin;
  } catch {
    throw invalidFields({ api_host: ['must be an absolute http(s) URL'] });
  }
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function projectApiUrl(host: string, org: string, project: string): string {
  return `${host}/api/0/projects/${encodeURIComponent(org)}/${encodeURIComponent(project)}/`;
}
