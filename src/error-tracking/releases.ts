/** Sentry releases and artifact bundles (what `sentry-cli` makes), as the domain holds them. */

export interface ReleaseCommit {
  readonly repository: string;
  readonly sha: string;
  readonly message: string | null;
  readonly authorName: string | null;
  readonly authorEmail: string | null;
  readonly timestamp: string | null;
}

/** One project's release. */
export interface Release {
  readonly id: number;
  readonly projectId: number;
  readonly version: string;
  readonly url: string | null;
  readonly createdAt: string;
  readonly dateReleased: string | null;
}

/** What the events say of a release: when it was first and last seen, and how many errors it brought. */
export interface ReleaseStats {
  readonly firstEvent: string | null;
  readonly lastEvent: string | null;
  /** Errors whose first event carried this release. */
  readonly newGroups: number;
  readonly commitCount: number;
  readonly lastCommit: ReleaseCommit | null;
}

/** A release over the projects of one organization (namespace) that carry its version, as Sentry answers. */
export interface OrgRelease {
  readonly version: string;
  readonly url: string | null;
  readonly createdAt: string;
  readonly dateReleased: string | null;
  readonly firstEvent: string | null;
  readonly lastEvent: string | null;
  readonly newGroups: number;
  readonly commitCount: number;
  readonly lastCommit: ReleaseCommit | null;
  readonly projects: readonly { readonly id: number; readonly slug: string; readonly name: string }[];
}

/** A repository sentry-cli can name in `--commit REPO@SHA`: a project of the organization with its git URL. */
export interface OrgRepository {
  readonly id: number;
  /** The project's full path: what `--commit` and `--auto` name. */
  readonly name: string;
  readonly url: string;
  readonly createdAt: string;
}

/** A head commit sentry-cli sends (`refs`): the repository, the commit and, optionally, the previous release's. */
export interface ReleaseRef {
  readonly repository: string;
  readonly commit: string;
  readonly previousCommit: string | null;
}

export type AssembleState = 'ok' | 'error' | 'not_found' | 'created' | 'assembling';

export interface AssembleResult {
  readonly state: AssembleState;
  readonly missingChunks: readonly string[];
  readonly detail: string | null;
}

/** The server's chunk upload options (what `GET .../chunk-upload/` answers). */
export interface ChunkLimits {
  readonly chunkSize: number;
  readonly chunksPerRequest: number;
  readonly maxRequestSize: number;
  /** Largest assembled bundle. */
  readonly maxFileSize: number;
  /** Most chunks in one bundle. */
  readonly maxChunks: number;
  /** Most files in one bundle. */
  readonly maxFiles: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = {
  chunkSize: 8 * 1024 * 1024,
  chunksPerRequest: 64,
  maxRequestSize: 32 * 1024 * 1024,
  maxFileSize: 64 * 1024 * 1024,
  maxChunks: 64,
  maxFiles: 2000,
};
