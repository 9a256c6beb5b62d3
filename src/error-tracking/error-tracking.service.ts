import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Offering } from '../config.js';
import type { Cipher } from '../crypto.js';
import { badRequest, forbidden, invalidFields, notFound, paramError } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { SettingsService } from '../settings/settings.service.js';
import { type Bucket, bucketWindow, type StatsPeriod } from '../time-buckets.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import type {
  ClientKey,
  ErrorActivity,
  ErrorEvent,
  ErrorHash,
  ErrorStatus,
  ErrorTrackingSettings,
  IgnoreCondition,
  Resolution,
  StackTrace,
  TrackedError,
} from './error-tracking.js';
import type {
  ErrorSearchTerm,
  ErrorSort,
  ErrorTrackingRepository,
  NewActivity,
  TriageChange,
} from './error-tracking.repository.js';
import { normalizeEvent, stackFrames } from './events.js';
import { type Attachment, DEFAULT_ATTACHMENT_LIMIT, type Feedback, MAX_ATTACHMENT_LIMIT } from './reports.js';
import type { ReportsRepository } from './reports.repository.js';
import { parseErrorSearch, SearchSyntaxError } from './search.js';
import { isSentrySlug } from './sentry-client.js';
import type { ResolvedFrame, Symbolicator } from './symbolication.js';

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
  /** Largest attachment kept, in bytes (1 to MAX_ATTACHMENT_LIMIT). */
  maxAttachmentSize?: number;
}

const DISABLED: ErrorTrackingSettings = {
  enabled: false,
  integrated: false,
  apiUrl: null,
  hasToken: false,
  projectName: null,
  organizationName: null,
  maxAttachmentSize: DEFAULT_ATTACHMENT_LIMIT,
};

/** Most errors one merge takes (a page of the list). */
const MAX_MERGE = 100;
/** Most errors one bulk change takes (a page of the list). */
export const MAX_BULK = 100;
/** Most activity entries an error shows (the newest). */
const MAX_ACTIVITY = 500;
/** The job that unignores an error when its ignore time comes (reads lapse it too; the job makes it durable). */
export const UNIGNORE_JOB = 'error_tracking_unignore';
const MAX_IGNORE_MINUTES = 366 * 24 * 60;

/**
 * A triage change of one or several errors (Developer), in GitLab's snake_case with Sentry's meanings: resolving in
 * a named release or the next one (statusDetails.inRelease / inNextRelease), ignoring until a time, for a duration
 * in minutes, for N more events or N more users (ignoreUntil, ignoreDuration, ignoreCount, ignoreUserCount), and the
 * assignee (`me`, a username, a user id; null or "" unassigns).
 */
export interface TriageInput {
  readonly status?: ErrorStatus;
  readonly resolvedInRelease?: string;
  readonly resolvedInNextRelease?: boolean;
  readonly ignoreUntil?: string;
  readonly ignoreDuration?: number;
  readonly ignoreCount?: number;
  readonly ignoreUserCount?: number;
  readonly assignee?: string | number | null;
}

/** An activity entry with its author, as the API shows it. */
export interface ActivityView extends ErrorActivity {
  readonly author: User | null;
}

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
    private readonly users: Pick<UsersService, 'findById' | 'findByUsername'>,
    private readonly jobs: JobQueue,
    /** Feedback, attachments and dropped-item counts (what SDKs send besides events). */
    private readonly reports: ReportsRepository,
    private readonly symbolicator: Symbolicator,
  ) {}

  /** The durable half of a timed ignore: the job due at its time unignores the error if it is still ignored. */
  registerJobs(): void {
    this.jobs.register(UNIGNORE_JOB, async (job) => {
      const { errorId } = job.payload as { errorId: number };
      await this.repo.lapseTimedIgnores({ errorId }, this.clock.now().toISOString());
    });
  }

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
  ): Promise<{
    project: Project;
    settings: ErrorTrackingSettings;
    integratedAvailable: boolean;
    droppedItems: Record<string, number>;
  }> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const stored = await this.repo.settings(project.id);
    if (!stored) throw notFound('Error Tracking Setting');
    return {
      project,
      settings: stored,
      integratedAvailable: await this.integratedAvailable(project.id),
      droppedItems: await this.reports.dropped(project.id),
    };
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
    const maxAttachmentSize = input.maxAttachmentSize ?? current.maxAttachmentSize;
    if (
      !Number.isSafeInteger(maxAttachmentSize) ||
      maxAttachmentSize < 1 ||
      maxAttachmentSize > MAX_ATTACHMENT_LIMIT
    )
      throw invalidFields({
        max_attachment_size: [`must be an integer from 1 to ${MAX_ATTACHMENT_LIMIT} (bytes)`],
      });
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
      { enabled, integrated, apiUrl, tokenEncrypted, projectName, organizationName, maxAttachmentSize },
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
    f: { status?: ErrorStatus; search?: string; query?: string },
    sort: ErrorSort,
    page: PageRequest,
    cursor?: string,
  ): Promise<
    | ({ readonly kind: 'offset' } & Paged<TrackedError>)
    | ({ readonly kind: 'cursor' } & CursorPaged<TrackedError>)
  > {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (!external) {
      // `search` (GitLab's) and `query` (Sentry's) take the same syntax; plain words are GitLab's text search.
      const terms = [
        ...(await this.searchTerms(actor, f.search)),
        ...(await this.searchTerms(actor, f.query)),
      ];
      await this.repo.lapseTimedIgnores({ projectId: project.id }, this.clock.now().toISOString());
      return {
        kind: 'offset',
        ...(await this.repo.list(project.id, { status: f.status, terms }, sort, page)),
      };
    }
    // An external Sentry parses its own query.
    const search = [f.search, f.query].filter((q) => q?.trim()).join(' ') || undefined;
    const result = await this.external.list(
      external,
      { status: f.status, search },
      sort,
      cursor === undefined ? page : { cursor, perPage: page.perPage },
    );
    return { kind: 'cursor', ...result, items: result.items.map((e) => ({ ...e, projectId: project.id })) };
  }

  async get(actor: User | null, idOrPath: string, errorId: string): Promise<TrackedError> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) return { ...(await this.external.get(external, errorId)), projectId: project.id };
    const e = await this.integratedError(project.id, errorId);
    if (e.status !== 'ignored' || !e.ignore?.until) return e;
    await this.repo.lapseTimedIgnores({ errorId: e.id }, this.clock.now().toISOString());
    return this.integratedError(project.id, errorId);
  }

  /** A search's terms, `assigned:` with its user found (an unknown username matches nothing); 400 on bad syntax. */
  private async searchTerms(actor: User | null, q: string | undefined): Promise<ErrorSearchTerm[]> {
    if (!q?.trim()) return [];
    let parsed: ReturnType<typeof parseErrorSearch>;
    try {
      parsed = parseErrorSearch(q);
    } catch (e) {
      if (e instanceof SearchSyntaxError) throw badRequest(e.message);
      throw e;
    }
    const out: ErrorSearchTerm[] = [];
    for (const t of parsed) {
      if (t.kind !== 'assigned') {
        out.push(t);
        continue;
      }
      if (t.value === 'me' && !actor)
        throw badRequest('Invalid search: "assigned:me" needs a signed-in user');
      const user = t.value === 'me' ? actor : await this.users.findByUsername(t.value.replace(/^@/, ''));
      out.push({ kind: 'assignee', userId: user?.id ?? null, negated: t.negated });
    }
    return out;
  }

  /**
   * Triage of one or several errors (Developer): status with its resolution or ignore condition, and the assignee,
   * each change recorded in the error's activity. All are checked before any changes. An external Sentry takes
   * the status only.
   */
  async triage(
    actor: User | null,
    idOrPath: string,
    errorIds: readonly string[],
    input: TriageInput,
  ): Promise<TrackedError[]> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Developer);
    const ids = [...new Set(errorIds)];
    if (ids.length === 0) throw invalidFields({ ids: ['must name at least one error'] });
    if (ids.length > MAX_BULK) throw invalidFields({ ids: [`must name at most ${MAX_BULK} errors`] });
    const status = statusOf(input);
    if (external) {
      const extra = Object.entries(input).some(([k, v]) => k !== 'status' && v !== undefined);
      if (extra)
        throw badRequest(
          'Assignees, resolutions in a release and ignore conditions need the integrated backend',
        );
      if (!status) throw paramError('status is missing');
      return Promise.all(
        ids.map(async (id) => ({
          ...(await this.external.setStatus(external, id, status)),
          projectId: project.id,
        })),
      );
    }
    if (!status && input.assignee === undefined)
      throw paramError('status, assignee are missing, at least one parameter must be provided');
    const errors = await Promise.all(ids.map((id) => this.integratedError(project.id, id)));
    const now = this.clock.now();
    const resolution = await this.resolutionOf(project.id, input);
    const assignee =
      input.assignee === undefined ? undefined : await this.assigneeOf(actor!, project, input.assignee);
    const until = ignoreUntilOf(input, now);
    for (const e of errors) {
      const change: TriageChange = {
        status,
        resolution,
        ignore: status === 'ignored' ? ignoreOf(input, until, e) : undefined,
        assigneeId: assignee === undefined ? undefined : (assignee?.id ?? null),
      };
      const activity = activityOf(actor!.id, e, change, assignee ?? null);
      await this.repo.triage(project.id, e.id, change, activity, now.toISOString());
      if (until) {
        await this.jobs.enqueue(
          UNIGNORE_JOB,
          { errorId: e.id },
          {
            runAt: new Date(until),
            uniqueKey: `${UNIGNORE_JOB}:${e.id}:${until}`,
          },
        );
      }
    }
    return Promise.all(errors.map((e) => this.integratedError(project.id, String(e.id))));
  }

  /** The resolution a resolve asks for; 400 for a release the project never saw, or no release to follow. */
  private async resolutionOf(projectId: number, input: TriageInput): Promise<Resolution | null> {
    if (input.resolvedInRelease !== undefined) {
      const release = input.resolvedInRelease;
      const seen = await this.repo.releaseFirstSeen(this.repo.queryable, projectId, release);
      if (!seen)
        throw invalidFields({
          resolved_in_release: [`release "${release}" has not been seen in this project's events`],
        });
      return { type: 'in_release', release, releaseSeenAt: seen };
    }
    if (input.resolvedInNextRelease) {
      const latest = await this.repo.latestRelease(projectId);
      // Sentry's answer when there is no release to be newer than.
      if (!latest)
        throw invalidFields({
          resolved_in_next_release: [
            "no release data present in the project's events to form a basis for 'next release'",
          ],
        });
      return { type: 'in_next_release', release: latest.release, releaseSeenAt: latest.seenAt };
    }
    return null;
  }

  /** `me`, a username or a user id, who must be a member of the project (inherited memberships count). */
  private async assigneeOf(actor: User, project: Project, a: string | number | null): Promise<User | null> {
    if (a === null || a === '') return null;
    const user =
      a === 'me'
        ? actor
        : typeof a === 'number' || /^\d{1,10}$/.test(a)
          ? await this.users.findById(Number(a))
          : await this.users.findByUsername(a.replace(/^@/, ''));
    if (!user) throw invalidFields({ assignee: ['is not a user'] });
    if ((await this.access.projectLevel(user, project)) < AccessLevel.Guest)
      throw invalidFields({ assignee: [`${user.username} is not a member of the project`] });
    return user;
  }

  /** A comment on an error (Developer): Markdown, kept in its activity. */
  async comment(actor: User | null, idOrPath: string, errorId: string, body: string): Promise<ActivityView> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Developer);
    if (external) throw badRequest('Comments are only kept by the integrated backend');
    const e = await this.integratedError(project.id, errorId);
    if (!body.trim()) throw badRequest('Note {:note=>["can\'t be blank"]}');
    if (body.length > MAX_COMMENT)
      throw badRequest(`Note {:note=>["is too long (maximum is ${MAX_COMMENT} characters)"]}`);
    await this.repo.addActivities(
      this.repo.queryable,
      project.id,
      e.id,
      [{ kind: 'note', authorId: actor!.id, body }],
      this.clock.now().toISOString(),
    );
    const all = await this.repo.activities(e.id, 1);
    return (await this.withAuthors(all))[0]!;
  }

  /** What happened to an error, oldest first (Reporter). */
  async activity(actor: User | null, idOrPath: string, errorId: string): Promise<ActivityView[]> {
    const { external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Activity is only kept by the integrated backend');
    // Through `get`, so that an ignore whose time has come shows as lapsed here too.
    const e = await this.get(actor, idOrPath, errorId);
    return this.withAuthors(await this.repo.activities(e.id, MAX_ACTIVITY));
  }

  private async withAuthors(rows: readonly ErrorActivity[]): Promise<ActivityView[]> {
    const ids = [...new Set(rows.map((r) => r.authorId).filter((id): id is number => id !== null))];
    const authors = new Map(
      await Promise.all(ids.map(async (id) => [id, await this.users.findById(id)] as const)),
    );
    return rows.map((r) => ({
      ...r,
      author: r.authorId === null ? null : (authors.get(r.authorId) ?? null),
    }));
  }

  /** Users by id (the assignees of a page of errors), each read once. */
  async usersById(ids: readonly (number | null | undefined)[]): Promise<Map<number, User>> {
    const wanted = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
    const found = await Promise.all(wanted.map((id) => this.users.findById(id)));
    return new Map(found.filter((u): u is User => u !== null).map((u) => [u.id, u]));
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
    // Through `get`, so that an ignore whose time has come shows as lapsed here too.
    const error = await this.get(actor, idOrPath, errorId);
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
    await this.repo.lapseTimedIgnores({ projectId: project.id }, this.clock.now().toISOString());
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
  ): Promise<{
    event: ErrorEvent;
    previous: string | null;
    next: string | null;
    frames: ResolvedFrame[];
  }> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Events are only kept by the integrated backend');
    const e = await this.integratedError(project.id, errorId);
    const event = await this.repo.event(e.id, eventId);
    if (!event) throw notFound('Event');
    const [neighbours, frames] = await Promise.all([
      this.repo.neighbours(event),
      this.symbolicator.frames(project.id, event.payload, stackFrames(event.payload)),
    ]);
    return { event, ...neighbours, frames };
  }

  async stackTrace(actor: User | null, idOrPath: string, errorId: string): Promise<StackTrace> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) return this.external.stackTrace(external, errorId);
    const e = await this.integratedError(project.id, errorId);
    const latest = await this.repo.latestEvent(e.id);
    return {
      errorId: e.id,
      dateReceived: latest?.occurredAt ?? e.lastSeen,
      // Resolved at read time, so source maps uploaded after the event apply too.
      frames: latest
        ? await this.symbolicator.frames(project.id, latest.payload, stackFrames(latest.payload))
        : [],
    };
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
      {
        projectId: project.id,
        row: { kind: 'merge', authorId: actor!.id, data: { merged_error_ids: sources.map((e) => e.id) } },
      },
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
    const id = await this.repo.unmerge(
      project.id,
      error.id,
      wanted,
      now.toISOString(),
      (payload) => {
        const e = normalizeEvent(payload, { now, clientIp: null });
        return { type: e.type, message: e.message, culprit: e.culprit, platform: e.platform };
      },
      actor!.id,
    );
    return this.integratedError(project.id, String(id));
  }

  /** The Connect action: lists the external system's projects with a host and token (Maintainer). */
  // What SDKs send besides events (the integrated backend only; read as errors are, Reporter).

  private async integrated(actor: User | null, idOrPath: string): Promise<Project> {
    const { project, external } = await this.backend(actor, idOrPath, AccessLevel.Reporter);
    if (external) throw badRequest('Feedback and attachments are only kept by the integrated backend');
    return project;
  }

  /** User feedback about the events of one error, newest first. */
  async feedbackOfError(actor: User | null, idOrPath: string, errorId: string): Promise<Feedback[]> {
    const project = await this.integrated(actor, idOrPath);
    const e = await this.integratedError(project.id, errorId);
    return this.reports.feedbackOfError(project.id, e.id);
  }

  /** The project's user feedback, newest first, whether or not svc has the event it names. */
  async feedbackOfProject(actor: User | null, idOrPath: string): Promise<Feedback[]> {
    return this.reports.feedbackOfProject((await this.integrated(actor, idOrPath)).id);
  }

  /** The attachments of one event of an error. */
  async attachments(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    eventId: string,
  ): Promise<Attachment[]> {
    const { project, event } = await this.eventOf(actor, idOrPath, errorId, eventId);
    return this.reports.attachments(project.id, event.eventId);
  }

  /** One attachment of an event, with its bytes. */
  async attachment(
    actor: User | null,
    idOrPath: string,
    errorId: string,
    eventId: string,
    attachmentId: string,
  ): Promise<{ attachment: Attachment; content: Buffer }> {
    const { project, event } = await this.eventOf(actor, idOrPath, errorId, eventId);
    const id = /^\d{1,10}$/.test(attachmentId) ? Number(attachmentId) : Number.NaN;
    const found = id <= 2_147_483_647 ? await this.reports.attachment(project.id, event.eventId, id) : null;
    if (!found) throw notFound('Attachment');
    return found;
  }

  private async eventOf(actor: User | null, idOrPath: string, errorId: string, eventId: string) {
    const project = await this.integrated(actor, idOrPath);
    const e = await this.integratedError(project.id, errorId);
    const event = await this.repo.event(e.id, eventId);
    if (!event) throw notFound('Event');
    return { project, event };
  }

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

/** GitLab's limit on a note's text. */
const MAX_COMMENT = 1_000_000;

/** The status a triage input asks for: given, or implied by its resolve or ignore options; 400 when they clash. */
function statusOf(input: TriageInput): ErrorStatus | undefined {
  const resolves = input.resolvedInRelease !== undefined || input.resolvedInNextRelease === true;
  const ignores = [input.ignoreUntil, input.ignoreDuration, input.ignoreCount, input.ignoreUserCount].some(
    (v) => v !== undefined,
  );
  if (input.resolvedInRelease !== undefined && input.resolvedInNextRelease)
    throw badRequest('resolved_in_release, resolved_in_next_release are mutually exclusive');
  if (resolves && ignores) throw badRequest('a resolution and an ignore condition are mutually exclusive');
  if (input.ignoreUntil !== undefined && input.ignoreDuration !== undefined)
    throw badRequest('ignore_until, ignore_duration are mutually exclusive');
  const implied = resolves ? 'resolved' : ignores ? 'ignored' : undefined;
  if (implied && input.status && input.status !== implied)
    throw invalidFields({
      status: [`must be ${implied} with ${resolves ? 'a resolution' : 'an ignore condition'}`],
    });
  return input.status ?? implied;
}

/** The time an ignore lasts until (ISO), from `ignore_until` or `ignore_duration` minutes; 400 when not ahead. */
function ignoreUntilOf(input: TriageInput, now: Date): string | null {
  if (input.ignoreDuration !== undefined) {
    if (
      !Number.isInteger(input.ignoreDuration) ||
      input.ignoreDuration < 1 ||
      input.ignoreDuration > MAX_IGNORE_MINUTES
    )
      throw invalidFields({
        ignore_duration: [`must be a whole number of minutes from 1 to ${MAX_IGNORE_MINUTES}`],
      });
    return new Date(now.getTime() + input.ignoreDuration * 60_000).toISOString();
  }
  if (input.ignoreUntil === undefined) return null;
  const t = Date.parse(input.ignoreUntil);
  if (Number.isNaN(t)) throw invalidFields({ ignore_until: ['must be an ISO 8601 time'] });
  if (t <= now.getTime()) throw invalidFields({ ignore_until: ['must be in the future'] });
  return new Date(t).toISOString();
}

function ignoreOf(input: TriageInput, until: string | null, e: TrackedError): IgnoreCondition | null {
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 1_000_000_000))
      throw invalidFields({ [name]: ['must be a whole number from 1 to 1000000000'] });
    return v ?? null;
  };
  const count = positive('ignore_count', input.ignoreCount);
  const userCount = positive('ignore_user_count', input.ignoreUserCount);
  if (until === null && count === null && userCount === null) return null;
  return {
    until,
    count,
    eventsBase: count === null ? null : e.count,
    userCount,
    usersBase: userCount === null ? null : e.userCount,
  };
}

/** The activity a change writes: what differs from the error as it was. */
function activityOf(
  authorId: number,
  e: TrackedError,
  change: TriageChange,
  assignee: User | null,
): NewActivity[] {
  const out: NewActivity[] = [];
  if (change.status !== undefined) {
    if (change.status === 'resolved' && change.resolution) {
      out.push({
        kind: 'set_resolved_in_release',
        authorId,
        data: { type: change.resolution.type, release: change.resolution.release },
      });
    } else if (change.status === 'ignored' && change.ignore) {
      const c = change.ignore;
      out.push({
        kind: 'set_ignored',
        authorId,
        data: { ignore_until: c.until, ignore_count: c.count, ignore_user_count: c.userCount },
      });
    } else if (change.status !== e.status || e.resolution || e.ignore) {
      const kind =
        change.status === 'resolved'
          ? 'set_resolved'
          : change.status === 'ignored'
            ? 'set_ignored'
            : 'set_unresolved';
      out.push({ kind, authorId });
    }
  }
  if (change.assigneeId !== undefined && change.assigneeId !== (e.assigneeId ?? null)) {
    out.push(
      assignee
        ? {
            kind: 'assigned',
            authorId,
            data: { assignee_id: assignee.id, assignee_username: assignee.username },
          }
        : { kind: 'unassigned', authorId },
    );
  }
  return out;
}
