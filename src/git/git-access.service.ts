import { randomUUID } from 'node:crypto';
import type { AuditService } from '../audit/audit.service.js';
import { PushTracker } from '../cluster/push-tracker.js';
import { AppError, unauthorized } from '../errors.js';
import type { GroupsService } from '../groups/groups.service.js';
import type { Outbox } from '../ingest/outbox.js';
import { AccessLevel, canSee } from '../members/members.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { SnippetsService } from '../snippets/snippets.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import type { Visibility } from '../visibility.js';
import type { ContainerKind } from './git.js';
import type { GitRepositoriesService } from './git-repositories.service.js';
import type { RefUpdate } from './smart-http.js';

/**
 * The most refs one push may change and still send push events (GitLab's application setting
 * `push_event_hooks_limit`, default 3): a push of many branches or tags at once (a mirror) sends none.
 */
export const PUSH_EVENT_HOOKS_LIMIT = 3;

/** Largest id the databases store (PostgreSQL `integer`): larger numbers name nothing. */
const MAX_ID = 2_147_483_647;

/** Who a git client is: the user (none: anonymous) and, for a personal access token, its scopes. */
export interface GitCredentials {
  readonly user: User | null;
  /** null for a password: the account's full rights. */
  readonly scopes: ReadonlySet<string> | null;
}

/** A repository a git client addresses, with what this caller may do. */
export interface GitTarget {
  readonly kind: ContainerKind;
  readonly id: number;
  readonly storage: string;
  readonly readOnly: boolean;
  readonly canRead: boolean;
  readonly canWrite: boolean;
}

/**
 * The answer to "may this caller fetch (or push to) this path": the repository's directory, or why not. `unknown`:
 * no such repository the caller may know of; `denied`: it exists but the caller (or the token's scopes) may not;
 * `missing`: the container exists but its repository does not.
 */
export type GitAccess =
  | { readonly ok: true; readonly target: GitTarget; readonly path: string }
  | { readonly ok: false; readonly reason: 'unknown' | 'denied' | 'missing' };

/**
 * Reading code: what `canSee` allows, and in a private project only from Reporter up (a Guest sees the project,
 * not its code: GitLab's permissions table, "Download project" / "Pull project code").
 */
function canReadCode(visibility: Visibility, signedIn: boolean, level: number): boolean {
  return canSee(visibility, signedIn, level) && (visibility !== 'private' || level >= AccessLevel.Reporter);
}

/**
 * What must happen during a push to a project, before it ends (merge requests record their new diff versions).
 * Declared here so that git, below merge requests, does not depend on them; the composition root passes the
 * merge requests service.
 */
export interface PushRecorder {
  recordVersions(projectId: number, pusher: User | null): Promise<void>;
}

/**
 * The rules of git over HTTP: who a client is (Basic credentials), which repository a path names, and whether the
 * caller may read or write it; what a push and a fetch record. The HTTP streaming lives in `smart-http.ts`.
 */
export class GitAccessService {
  constructor(
    private readonly users: UsersService,
    private readonly groups: GroupsService,
    private readonly projects: ProjectsService,
    private readonly snippets: SnippetsService,
    private readonly settings: SettingsService,
    private readonly repositories: GitRepositoriesService,
    private readonly audit: AuditService,
    private readonly mergeRequests: PushRecorder,
    /** Pushes in progress for storage moves (memory only unless the composition root shares it). */
    private readonly pushes: PushTracker = new PushTracker(null, false),
    /** Where a push's events are written (`project.event`, for project hooks); none: no events. */
    private readonly outbox: Pick<Outbox, 'emit'> | null = null,
  ) {}

  /**
   * Basic credentials: a username and a personal access token, or the account password (as git does with GitLab
   * when the account has no 2FA). No credentials: anonymous. Wrong ones: 401.
   */
  async authenticate(authorization: string | undefined): Promise<GitCredentials> {
    if (!authorization || !/^basic\s+/i.test(authorization)) return { user: null, scopes: null };
    const decoded = Buffer.from(authorization.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const username = colon >= 0 ? decoded.slice(0, colon) : decoded;
    const secret = colon >= 0 ? decoded.slice(colon + 1) : '';
    try {
      const { user, token } = await this.users.authenticateToken(secret);
      return { user, scopes: new Set(token.scopes) };
    } catch {
      const session = await this.users.checkPassword(username, secret);
      if (session) return { user: session, scopes: null };
      throw unauthorized();
    }
  }

  /** Whether the caller may fetch (`write` false) or push to the repository at `repoPath`. */
  async access(who: GitCredentials, repoPath: string, write: boolean): Promise<GitAccess> {
    const target = await this.resolve(who.user, repoPath);
    if (!target) return { ok: false, reason: 'unknown' };
    const scoped =
      !who.scopes || who.scopes.has('api') || who.scopes.has(write ? 'write_repository' : 'read_repository');
    if (!(write ? target.canWrite : target.canRead) || !scoped) return { ok: false, reason: 'denied' };
    const path = this.repositories.path(target.kind, target.id, target.storage);
    if (!(await this.repositories.git.exists(path))) return { ok: false, reason: 'missing' };
    return { ok: true, target, path };
  }

  /** GitLab's `receive_max_input_size` in MB (0: unlimited). */
  async maxPushMb(): Promise<number> {
    return (await this.settings.get()).receive_max_input_size;
  }

  /** Runs git for a request (see `Git.spawn`). */
  spawn(args: readonly string[], env: Record<string, string>) {
    return this.repositories.git.spawn(args, env);
  }

  /**
   * Records a push about to start on `target` for storage moves on every process (see `PushTracker`): the function
   * that ends it, or null when a move made the repository read-only since the request began.
   */
  beginPush(target: GitTarget): Promise<(() => Promise<void>) | null> {
    return this.pushes.begin(`${target.kind}:${target.id}`);
  }

  /**
   * A push that settles with `push` and was recorded by `beginPush`; a successful push to a project is activity,
   * and a new diff version of the merge requests whose source it moved. The versions are recorded before the push
   * ends for storage moves, so that a move never copies half of them. `pusher` is who pushed (the merge requests'
   * system notes name them). `updates` are the ref updates the push asked for (read from its request): those it
   * made are written as push events once it ended.
   */
  async push(
    pusher: User | null,
    target: GitTarget,
    push: Promise<boolean>,
    end: () => Promise<void>,
    updates: () => readonly RefUpdate[] = () => [],
  ): Promise<void> {
    let ok: boolean;
    try {
      ok = await push;
      // The push itself succeeded: a failure to record versions does not undo it (the next read records them).
      if (ok && target.kind === 'project')
        await this.mergeRequests.recordVersions(target.id, pusher).catch(() => undefined);
    } finally {
      await end();
    }
    if (ok && target.kind === 'project') {
      await this.projects.touchActivity(target.id);
      await this.pushEvents(pusher, target, updates());
    }
  }

  /**
   * One `project.event` per ref the push changed, as GitLab's post-receive: only the updates that took (the ref now
   * holds the new value, or is gone after a deletion), and none at all for a push of more than
   * PUSH_EVENT_HOOKS_LIMIT refs.
   */
  private async pushEvents(
    pusher: User | null,
    target: GitTarget,
    asked: readonly RefUpdate[],
  ): Promise<void> {
    if (!this.outbox || asked.length === 0 || asked.length > PUSH_EVENT_HOOKS_LIMIT) return;
    const path = this.repositories.path(target.kind, target.id, target.storage);
    const out = await this.repositories.git
      .run(['for-each-ref', '--format=%(objectname) %(refname)', ...asked.map((u) => u.ref)], { cwd: path })
      .catch(() => null);
    if (out === null) return;
    const now = new Map(
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => [l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' '))] as const),
    );
    for (const u of asked) {
      const deleted = /^0+$/.test(u.after);
      if (deleted ? now.has(u.ref) : now.get(u.ref) !== u.after) continue;
      await this.outbox.emit('project.event', {
        kind: 'push',
        eventId: randomUUID(),
        projectId: target.id,
        userId: pusher?.id ?? null,
        update: u,
      });
    }
  }

  /** A completed clone or fetch of a project is a repository download (audit events; spec 17.0 change). */
  async fetched(user: User | null, target: GitTarget, ip: string | null): Promise<void> {
    if (target.kind !== 'project') return;
    const { project } = await this.projects.find(user, String(target.id));
    await this.audit.recordDownload(user, project, ip, 'git');
  }

  /** Resolves the container a git path names, for this caller; null when there is none it may know of. */
  private async resolve(user: User | null, path: string): Promise<GitTarget | null> {
    // No repository path holds control characters (PostgreSQL refuses a NUL in a query parameter).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    if (/[\u0000-\u001f\u007f]/.test(path)) return null;
    // Ids beyond the databases' integer range name nothing (PostgreSQL would refuse the query).
    if (/(?:^|\/)\d{10,}(?:\.wiki)?$/.test(path) && path.match(/\d+/g)!.some((n) => Number(n) > MAX_ID)) {
      return null;
    }
    try {
      const wiki = /^groups\/(.+)\.wiki$/.exec(path);
      if (wiki) {
        const { group, level } = await this.groups.find(user, wiki[1]!);
        if (!group.repositoryStorage) return null;
        return {
          kind: 'group',
          id: group.id,
          storage: group.repositoryStorage,
          readOnly: group.repositoryReadOnly,
          canRead: canSee(group.visibility, user !== null, level) || user?.admin === true,
          canWrite: level >= AccessLevel.Developer,
        };
      }
      const snippet = /^(?:(.+)\/)?snippets\/(\d+)$/.exec(path);
      if (snippet) {
        const { snippet: s, level } = await this.snippets.find(user, Number(snippet[2]), snippet[1]);
        const mine = user !== null && (user.admin || s.author.id === user.id);
        return {
          kind: 'snippet',
          id: s.id,
          storage: s.repositoryStorage,
          readOnly: s.repositoryReadOnly,
          // Finding the snippet already applied its visibility.
          canRead: true,
          canWrite: mine || (s.projectId !== null && level >= AccessLevel.Maintainer),
        };
      }
      const { project, level } = await this.projects.find(user, path);
      return {
        kind: 'project',
        id: project.id,
        storage: project.repositoryStorage,
        readOnly: project.repositoryReadOnly,
        canRead: canReadCode(project.visibility, user !== null, level),
        canWrite: level >= AccessLevel.Developer,
      };
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') return null;
      throw err;
    }
  }
}
