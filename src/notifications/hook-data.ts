/**
 * GitLab's webhook payloads for the project events svc has (GitLab's Gitlab::DataBuilder::Push, Gitlab::HookData
 * and the "Webhook events" page): push and tag push, merge request and note events. Built when the delivery is
 * prepared, from what the event recorded and the objects as they are then.
 */
import type { GitRepositoriesService, PushedCommit } from '../git/git-repositories.service.js';
import type { ProjectEvent, PushedRef } from '../ingest/outbox.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import type { Visibility } from '../visibility.js';
import type { HookPayload } from './notifications.js';

/** GitLab's push payloads describe at most this many commits (the newest); `total_commits_count` counts all. */
export const PUSH_PAYLOAD_COMMITS = 20;

/** GitLab's `X-Gitlab-Event` header of each of its event kinds. */
export const GITLAB_EVENT_HEADERS: Readonly<Record<string, string>> = {
  push: 'Push Hook',
  tag_push: 'Tag Push Hook',
  merge_request: 'Merge Request Hook',
  note: 'Note Hook',
};

/**
 * A merge request as its payloads read it (what the merge requests service's view has; declared here, as a port,
 * because merge requests sit above notifications).
 */
export interface HookMergeRequest {
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string;
  readonly sourceBranch: string;
  readonly targetBranch: string;
  readonly authorId: number | null;
  readonly state: 'opened' | 'closed' | 'merged';
  readonly mergeStatus: string;
  readonly detailedMergeStatus: string;
  readonly draft: boolean;
  readonly mergeCommitSha: string | null;
  readonly mergeUserId: number | null;
  readonly mergedAt: string | null;
  readonly closedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly diffRefs: { readonly headSha: string } | null;
  readonly mergedDiff: { readonly headSha: string } | null;
}

/** What the payloads read of other features (ports, wired in the composition root). */
export interface HookDataSources {
  readonly users: Pick<UsersService, 'findById'>;
  readonly git: Pick<GitRepositoriesService, 'pushedRef' | 'commit'>;
  readonly mergeRequests: {
    viewForSystem(projectId: number, iid: number): Promise<HookMergeRequest | null>;
  };
}

const VISIBILITY_LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };
const STATE_ID = { opened: 1, closed: 2, merged: 3 } as const;

/** Whether a ref is a tag: its push is a `tag_push` event. */
export const isTagRef = (ref: string): boolean => ref.startsWith('refs/tags/');

/** Builds the payloads of project events for one instance (its external URL). */
export class HookDataBuilder {
  constructor(
    private readonly sources: HookDataSources,
    private readonly externalUrl: string,
  ) {}

  private webUrl(project: Project): string {
    return `${this.externalUrl}/${project.fullPath}`;
  }

  /**
   * GitLab's `Project#hook_attrs`. svc serves git over HTTP only: the SSH URLs GitLab also sends are null, and
   * `url` is the HTTP clone URL.
   */
  project(project: Project): HookPayload['project'] & Record<string, unknown> {
    const web = this.webUrl(project);
    return {
      id: project.id,
      name: project.name,
      description: project.description,
      web_url: web,
      avatar_url: null,
      git_ssh_url: null,
      git_http_url: `${web}.git`,
      namespace: project.namespace.name,
      visibility_level: VISIBILITY_LEVEL[project.visibility],
      path_with_namespace: project.fullPath,
      default_branch: project.defaultBranch,
      ci_config_path: null,
      homepage: web,
      url: `${web}.git`,
      ssh_url: null,
      http_url: `${web}.git`,
    };
  }

  /** GitLab's `repository` key (kept beside `project` for older receivers). */
  private repository(project: Project) {
    const web = this.webUrl(project);
    return {
      name: project.name,
      url: `${web}.git`,
      description: project.description,
      homepage: web,
      git_http_url: `${web}.git`,
      git_ssh_url: null,
      visibility_level: VISIBILITY_LEVEL[project.visibility],
    };
  }

  /** GitLab's `User#hook_attrs`; the e-mail address is redacted, as GitLab does. */
  private user(user: User | null) {
    return user
      ? { id: user.id, name: user.name, username: user.username, avatar_url: null, email: '[REDACTED]' }
      : null;
  }

  private async userOf(id: number | null): Promise<User | null> {
    return id === null ? null : this.sources.users.findById(id);
  }

  /** The payload of an event, or null when what it is about is gone (nothing is sent then). */
  async build(project: Project, event: ProjectEvent): Promise<HookPayload | null> {
    if (event.kind === 'push') return this.push(project, event.userId, event.update);
    if (event.kind === 'merge_request') return this.mergeRequest(project, event);
    return this.note(project, event);
  }

  private commit(project: Project, c: PushedCommit) {
    return {
      id: c.id,
      message: c.message,
      title: c.title,
      timestamp: c.timestamp,
      url: `${this.webUrl(project)}/-/commit/${c.id}`,
      author: { name: c.authorName, email: c.authorEmail },
      added: c.added,
      modified: c.modified,
      removed: c.removed,
    };
  }

  /** GitLab's push and tag push payloads (Gitlab::DataBuilder::Push). */
  private async push(project: Project, userId: number | null, update: PushedRef): Promise<HookPayload> {
    const [user, content] = await Promise.all([
      this.userOf(userId),
      this.sources.git.pushedRef(project, update, PUSH_PAYLOAD_COMMITS),
    ]);
    const kind = isTagRef(update.ref) ? 'tag_push' : 'push';
    return {
      object_kind: kind,
      event_name: kind,
      before: update.before,
      after: update.after,
      ref: update.ref,
      // svc has no protected branches or tags.
      ref_protected: false,
      checkout_sha: content.checkoutSha,
      message: content.message,
      user_id: user?.id ?? null,
      user_name: user?.name ?? null,
      user_username: user?.username ?? null,
      user_email: null,
      user_avatar: null,
      project_id: project.id,
      project: this.project(project),
      commits: content.commits.map((c) => this.commit(project, c)),
      total_commits_count: content.totalCommits,
      push_options: {},
      repository: this.repository(project),
    };
  }

  /** GitLab's `MergeRequest#hook_attrs`, with `extra` (the event's `action`, ...). */
  private async mergeRequestAttributes(
    project: Project,
    mr: HookMergeRequest,
    extra: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const head = mr.diffRefs?.headSha ?? mr.mergedDiff?.headSha ?? null;
    const last = head ? await this.sources.git.commit(project, head) : null;
    const ref = this.project(project);
    return {
      id: mr.id,
      iid: mr.iid,
      title: mr.title,
      description: mr.description,
      source_branch: mr.sourceBranch,
      target_branch: mr.targetBranch,
      source_project_id: project.id,
      target_project_id: project.id,
      author_id: mr.authorId,
      assignee_id: null,
      assignee_ids: [],
      reviewer_ids: [],
      milestone_id: null,
      state_id: STATE_ID[mr.state],
      state: mr.state,
      merge_status: mr.mergeStatus,
      detailed_merge_status: mr.detailedMergeStatus,
      draft: mr.draft,
      work_in_progress: mr.draft,
      blocking_discussions_resolved: true,
      merge_commit_sha: mr.mergeCommitSha,
      merge_user_id: mr.mergeUserId,
      merge_when_pipeline_succeeds: false,
      head_pipeline_id: null,
      created_at: mr.createdAt,
      updated_at: mr.updatedAt,
      merged_at: mr.mergedAt,
      closed_at: mr.closedAt,
      url: `${this.webUrl(project)}/-/merge_requests/${mr.iid}`,
      source: ref,
      target: ref,
      last_commit: last && {
        id: last.id,
        message: last.message,
        title: last.title,
        timestamp: last.timestamp,
        url: `${this.webUrl(project)}/-/commit/${last.id}`,
        author: { name: last.authorName, email: last.authorEmail },
      },
      labels: [],
      total_time_spent: 0,
      time_change: 0,
      time_estimate: 0,
      human_total_time_spent: null,
      human_time_change: null,
      human_time_estimate: null,
      ...extra,
    };
  }

  /** GitLab's merge request payload (object_kind `merge_request`), or null when the merge request is gone. */
  private async mergeRequest(
    project: Project,
    e: Extract<ProjectEvent, { kind: 'merge_request' }>,
  ): Promise<HookPayload | null> {
    const [user, mr] = await Promise.all([
      this.userOf(e.userId),
      this.sources.mergeRequests.viewForSystem(project.id, e.iid),
    ]);
    if (!mr) return null;
    const attributes = await this.mergeRequestAttributes(project, mr, {
      action: e.action,
      updated_by_id: e.userId,
      ...(e.oldrev && { oldrev: e.oldrev }),
    });
    return {
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: this.user(user),
      project: this.project(project),
      object_attributes: attributes,
      labels: [],
      changes: e.changes ?? {},
      repository: this.repository(project),
      assignees: [],
      reviewers: [],
    };
  }

  /** GitLab's note payload (object_kind `note`); a merge request's note carries the merge request. */
  private async note(
    project: Project,
    e: Extract<ProjectEvent, { kind: 'note' }>,
  ): Promise<HookPayload | null> {
    const n = e.note;
    const user = await this.userOf(e.userId);
    const web = this.webUrl(project);
    let url: string;
    let noteable: Record<string, unknown> = {};
    if (n.noteableType === 'MergeRequest') {
      const mr = await this.sources.mergeRequests.viewForSystem(project.id, n.noteableIid);
      if (!mr) return null;
      url = `${web}/-/merge_requests/${n.noteableIid}#note_${n.id}`;
      noteable = { merge_request: await this.mergeRequestAttributes(project, mr, {}) };
    } else if (n.noteableType === 'Issue') {
      url = `${web}/-/issues/${n.noteableIid}#note_${n.id}`;
    } else {
      url = `${web}/-/alert_management/${n.noteableIid}/details#note_${n.id}`;
    }
    return {
      object_kind: 'note',
      event_type: n.internal ? 'confidential_note' : 'note',
      user: this.user(user),
      project_id: project.id,
      project: this.project(project),
      object_attributes: {
        id: n.id,
        note: n.body,
        noteable_type: n.noteableType,
        noteable_id: n.noteableId,
        author_id: e.userId,
        project_id: project.id,
        created_at: n.createdAt,
        updated_at: n.updatedAt,
        updated_by_id: null,
        attachment: null,
        line_code: null,
        commit_id: null,
        system: false,
        st_diff: null,
        type: null,
        position: null,
        original_position: null,
        resolved_at: null,
        resolved_by_id: null,
        resolved_by_push: null,
        change_position: null,
        discussion_id: null,
        confidential: n.internal,
        internal: n.internal,
        action: 'create',
        url,
        description: n.body,
      },
      repository: this.repository(project),
      ...noteable,
    };
  }
}
