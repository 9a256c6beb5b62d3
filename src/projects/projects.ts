/** Domain types for projects and the port that creates and removes their repositories. */
import type { Namespace } from '../namespaces/namespaces.js';
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';

/** How merge requests are merged (GitLab's `merge_method`). */
export type MergeMethod = 'merge' | 'rebase_merge' | 'ff';
export const MERGE_METHODS: readonly MergeMethod[] = ['merge', 'rebase_merge', 'ff'];

/** The features whose `<feature>_access_level` a project records (GitLab's names; `monitor` is separate). */
export const ACCESS_LEVEL_FEATURES = [
  'issues',
  'repository',
  'merge_requests',
  'forking',
  'wiki',
  'builds',
  'snippets',
  'pages',
  'analytics',
  'container_registry',
  'security_and_compliance',
  'releases',
  'environments',
  'feature_flags',
  'infrastructure',
  'requirements',
] as const;
export type AccessLevelFeature = (typeof ACCESS_LEVEL_FEATURES)[number];
/** GitLab's feature access values; `public` only for pages. */
export type FeatureAccess = 'disabled' | 'private' | 'enabled' | 'public';

/** The settings GitLab clients read and settings tools reconcile (what `PUT` accepts, `GET` returns). */
export interface ProjectSettings {
  readonly mergeMethod: MergeMethod;
  readonly requestAccessEnabled: boolean;
  readonly removeSourceBranchAfterMerge: boolean;
  readonly onlyAllowMergeIfAllDiscussionsAreResolved: boolean;
  readonly onlyAllowMergeIfPipelineSucceeds: boolean;
  /** Each feature's access level; `enabled` unless set. */
  readonly accessLevels: Readonly<Record<AccessLevelFeature, FeatureAccess>>;
}

export interface Project {
  readonly id: number;
  readonly namespace: Namespace;
  readonly name: string;
  readonly path: string;
  readonly fullPath: string;
  readonly description: string;
  readonly visibility: Visibility;
  readonly defaultBranch: string;
  readonly monitorEnabled: boolean;
  readonly repositoryStorage: string;
  /** True while a storage move runs: pushes and content writes are refused. */
  readonly repositoryReadOnly: boolean;
  readonly creatorId: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastActivityAt: string;
  readonly settings: ProjectSettings;
  /** Approvals a merge request needs (the project's approval settings; 0 when none are set). */
  readonly approvalsBeforeMerge: number;
  /** The avatar's stored name, or null. */
  readonly avatar: string | null;
  /** Whether the repository has no branch; null: not recorded yet (`ProjectsService` reads it when shown). */
  readonly emptyRepo: boolean | null;
  /** The README at the root of the default branch, if any. */
  readonly readmePath: string | null;
}

/** What a project's repository holds, as the project records it. */
export interface RepositoryState {
  readonly emptyRepo: boolean;
  readonly readmePath: string | null;
}

/** Orders offered for project lists. */
export type ProjectOrder = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at';

/** Creates and removes the bare repositories of projects, snippets and group wikis (a port of the accounts services). */
export interface RepositoryLifecycle {
  create(
    kind: 'project' | 'snippet' | 'group',
    id: number,
    storage: string,
    defaultBranch?: string,
  ): Promise<void>;
  remove(kind: 'project' | 'snippet' | 'group', id: number, storage: string): Promise<void>;
  /** Commits one file as the whole tree of a branch of a project's repository (a new project's README). */
  commitProjectFile(
    id: number,
    storage: string,
    branch: string,
    file: { name: string; content: string },
    message: string,
    author: User,
  ): Promise<void>;
  /** Whether a project's repository has branches, and the files at the root of `branch`. */
  branchSummary(
    id: number,
    storage: string,
    branch: string,
  ): Promise<{ hasBranches: boolean; rootFiles: string[] }>;
  /** Records a snippet's content as a commit in its repository. */
  commitSnippet(
    id: number,
    storage: string,
    file: { name: string; content: string },
    author: User,
  ): Promise<void>;
}

/** Markup formats GitLab renders (`Gitlab::MarkupHelper`): a README in one of them is preferred to a plain one. */
const MARKUP_EXTENSIONS = new Set([
  'md',
  'markdown',
  'mdown',
  'mkd',
  'mkdn',
  'rmd',
  'adoc',
  'ad',
  'asciidoc',
  'rdoc',
  'org',
  'creole',
  'wiki',
  'mediawiki',
  'rst',
  'textile',
  'pod',
]);

/**
 * The README of a tree's root files, as GitLab's `Tree#readme` picks it: names starting with `readme` (any case);
 * a rendered format first, else a plain one (no extension or `.txt`); the first by name among them. Null: none.
 */
export function pickReadme(rootFiles: readonly string[]): string | null {
  const readmes = rootFiles.filter((n) => /^readme/i.test(n)).sort();
  const ext = (n: string) => (n.includes('.') ? n.slice(n.lastIndexOf('.') + 1).toLowerCase() : '');
  return (
    readmes.find((n) => MARKUP_EXTENSIONS.has(ext(n))) ??
    readmes.find((n) => ext(n) === '' || ext(n) === 'txt') ??
    null
  );
}
