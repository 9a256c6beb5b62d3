import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { type AppError, forbidden, notFound, plainError } from '../errors.js';
import type { RepositoryService } from '../git/repository.service.js';
import { AccessLevel } from '../members/members.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import { BundleError, parseBundle } from './artifact-bundle.js';
import type {
  AssembleResult,
  ChunkLimits,
  OrgRelease,
  OrgRepository,
  Release,
  ReleaseCommit,
  ReleaseRef,
} from './releases.js';
import type { ReleasesRepository } from './releases.repository.js';

/**
 * Sentry's releases and artifact bundles for `sentry-cli`, over svc's projects: an organization is a namespace (a
 * group or a user's), a project slug is the project's path in it. Releases are kept per project; an
 * organization's release is the projects' releases of that version together. Writing (releases, uploads) takes
 * Developer in the project, reading Reporter. Commits come from the project's own repository.
 */

/** Sentry's rule for release versions (`Release.is_valid_version`). */
const BAD_VERSION = /[\r\n\f\t/\\]/;
const MAX_VERSION = 200;
/** Commits a release takes from a repository when no previous commit bounds them (sentry-cli's default depth). */
const DEFAULT_DEPTH = 20;
/** Most commits one release holds. */
const MAX_COMMITS = 1000;
/** Projects of an organization read at most. */
const MAX_ORG_PROJECTS = 100;
/** How long uploaded chunks wait for their assemble. */
const CHUNK_TTL_MS = 24 * 3600_000;

/** A Sentry-shaped refusal: 400 with `detail`. */
const invalid = (detail: string): AppError => plainError('bad_request', detail);

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');
const SHA1 = /^[0-9a-f]{40}$/;

export interface GitCommitInput {
  readonly id: string;
  readonly repository: string | null;
  readonly message: string | null;
  readonly authorName: string | null;
  readonly authorEmail: string | null;
  readonly timestamp: string | null;
}

export class ReleasesService {
  constructor(
    private readonly repo: ReleasesRepository,
    private readonly access: Access,
    private readonly namespaces: NamespacesService,
    private readonly projects: ProjectsService,
    private readonly repository: RepositoryService,
    private readonly clock: Clock,
    readonly limits: ChunkLimits,
  ) {}

  // Organizations and projects.

  /** The organization's projects the caller may see, with the caller's level in each. */
  private async orgProjects(actor: User, org: string): Promise<{ project: Project; level: number }[]> {
    const ns = await this.namespaces.findByFullPath(org);
    if (!ns) throw notFound('Organization');
    const page = await this.projects.listInGroup(actor, ns, false, { page: 1, perPage: MAX_ORG_PROJECTS });
    const out = await Promise.all(
      page.items.map(async (project) => ({ project, level: await this.access.projectLevel(actor, project) })),
    );
    if (out.length === 0 && !actor.admin) throw notFound('Organization');
    return out;
  }

  /** Projects of the organization at `min` or above: 404 when it shows none, 403 when none is at that level. */
  private async orgProjectsAt(actor: User, org: string, min: number): Promise<Project[]> {
    const all = await this.orgProjects(actor, org);
    const at = all.filter((p) => p.level >= min || actor.admin).map((p) => p.project);
    if (at.length === 0) throw forbidden('You do not have permission to perform this action.');
    return at;
  }

  /** One project of the organization, by its slug (its path), at `min`. */
  async project(actor: User, org: string, slug: string, min: number): Promise<Project> {
    return (await this.access.project(actor, `${org}/${slug}`, min)).project;
  }

  private async namedProjects(actor: User, org: string, slugs: readonly string[], min: number) {
    return Promise.all([...new Set(slugs)].map((s) => this.project(actor, org, s, min)));
  }

  // Releases.

  private checkVersion(version: unknown): string {
    if (typeof version !== 'string' || version.trim() === '')
      throw invalid('version: This field is required.');
    if (version.length > MAX_VERSION)
      throw invalid(`version: Ensure this field has no more than ${MAX_VERSION} characters.`);
    if (BAD_VERSION.test(version) || version === '.' || version === '..' || version === 'latest')
      throw invalid(
        `version: Release names cannot contain slashes, line breaks or tabs, nor be "${version}".`,
      );
    return version;
  }

  /** `POST /organizations/{org}/releases/`: creates the release in each project named (or finds it). */
  async create(
    actor: User,
    org: string,
    input: { version: unknown; projects: readonly string[]; url: string | null; dateReleased: string | null },
  ): Promise<OrgRelease> {
    const version = this.checkVersion(input.version);
    if (input.projects.length === 0) throw invalid('projects: This field is required.');
    const projects = await this.namedProjects(actor, org, input.projects, AccessLevel.Developer);
    const now = this.clock.now().toISOString();
    for (const p of projects) {
      const r = await this.repo.ensure(p.id, version, input.url, now);
      if (input.dateReleased !== null || (input.url !== null && r.url !== input.url))
        await this.repo.update(r.id, {
          ...(input.url !== null && { url: input.url }),
          ...(input.dateReleased !== null && { dateReleased: input.dateReleased }),
        });
    }
    return this.orgRelease(org, version, projects);
  }

  /** The releases of `version` in the projects the caller may act on at `min` (the named ones, or all of the org). */
  private async releasesOf(
    actor: User,
    org: string,
    version: string,
    min: number,
    slugs: readonly string[] | null,
  ): Promise<{ project: Project; release: Release }[]> {
    const projects =
      slugs && slugs.length > 0
        ? await this.namedProjects(actor, org, slugs, min)
        : await this.orgProjectsAt(actor, org, min);
    const found = await Promise.all(
      projects.map(async (project) => ({ project, release: await this.repo.find(project.id, version) })),
    );
    const out = found.filter((f): f is { project: Project; release: Release } => f.release !== null);
    if (out.length === 0) throw notFound('Release');
    return out;
  }

  async get(actor: User, org: string, version: string): Promise<OrgRelease> {
    const found = await this.releasesOf(actor, org, version, AccessLevel.Reporter, null);
    return this.orgRelease(
      org,
      version,
      found.map((f) => f.project),
    );
  }

  /**
   * `PUT /organizations/{org}/releases/{version}/`: finalize (`dateReleased`), URL, and commits, either as `refs`
   * (head commits of svc repositories, read from them) or as `commits` (what `--local` read from a checkout).
   */
  async update(
    actor: User,
    org: string,
    version: string,
    input: {
      projects: readonly string[] | null;
      url: string | null | undefined;
      dateReleased: string | null | undefined;
      refs: readonly ReleaseRef[] | null;
      commits: readonly GitCommitInput[] | null;
    },
  ): Promise<OrgRelease> {
    const found = await this.releasesOf(actor, org, version, AccessLevel.Developer, input.projects);
    let commits: ReleaseCommit[] | null = null;
    if (input.refs !== null) commits = await this.commitsOfRefs(actor, org, found[0]!.release, input.refs);
    else if (input.commits !== null) commits = input.commits.slice(0, MAX_COMMITS).map(localCommit);
    for (const { release } of found) {
      await this.repo.update(release.id, {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.dateReleased !== undefined && { dateReleased: input.dateReleased }),
      });
      if (commits !== null) await this.repo.setCommits(release.id, commits);
    }
    return this.orgRelease(
      org,
      version,
      found.map((f) => f.project),
    );
  }

  async delete(actor: User, org: string, version: string): Promise<void> {
    const found = await this.releasesOf(actor, org, version, AccessLevel.Developer, null);
    for (const { release } of found) await this.repo.delete(release.id);
  }

  /** The releases of the organization (or of one project), newest first. */
  async list(actor: User, org: string, slug: string | null): Promise<OrgRelease[]> {
    const projects =
      slug !== null
        ? [await this.project(actor, org, slug, AccessLevel.Reporter)]
        : await this.orgProjectsAt(actor, org, AccessLevel.Reporter);
    const releases = await this.repo.list(
      projects.map((p) => p.id),
      100,
    );
    const versions = [...new Set(releases.map((r) => r.version))];
    return Promise.all(
      versions.map((v) =>
        this.orgRelease(
          org,
          v,
          projects.filter((p) => releases.some((r) => r.version === v && r.projectId === p.id)),
        ),
      ),
    );
  }

  async commits(actor: User, org: string, version: string): Promise<ReleaseCommit[]> {
    const found = await this.releasesOf(actor, org, version, AccessLevel.Reporter, null);
    return this.repo.commits(found[0]!.release.id);
  }

  /** The newest earlier release of the organization's projects with commits, or null. */
  async previousWithCommits(actor: User, org: string, version: string): Promise<OrgRelease | null> {
    const found = await this.releasesOf(actor, org, version, AccessLevel.Reporter, null);
    const projects = found.map((f) => f.project);
    const prev = await this.repo.previousWithCommits(
      projects.map((p) => p.id),
      found[0]!.release,
    );
    return prev
      ? this.orgRelease(
          org,
          prev.version,
          projects.filter((p) => p.id === prev.projectId),
        )
      : null;
  }

  /** A release over these projects as Sentry shows one: the earliest creation, the figures added up. */
  private async orgRelease(org: string, version: string, projects: readonly Project[]): Promise<OrgRelease> {
    const rows = (
      await Promise.all(
        projects.map(async (p) => {
          const r = await this.repo.find(p.id, version);
          return r ? { project: p, release: r, stats: await this.repo.stats(r) } : null;
        }),
      )
    ).filter((x) => x !== null);
    const min = (xs: (string | null)[]) => xs.filter((x) => x !== null).sort()[0] ?? null;
    const max = (xs: (string | null)[]) =>
      xs
        .filter((x) => x !== null)
        .sort()
        .pop() ?? null;
    const withCommit = rows.find((r) => r.stats.lastCommit !== null);
    return {
      version,
      url: rows.find((r) => r.release.url !== null)?.release.url ?? null,
      createdAt: min(rows.map((r) => r.release.createdAt)) ?? this.clock.now().toISOString(),
      dateReleased: max(rows.map((r) => r.release.dateReleased)),
      firstEvent: min(rows.map((r) => r.stats.firstEvent)),
      lastEvent: max(rows.map((r) => r.stats.lastEvent)),
      newGroups: rows.reduce((n, r) => n + r.stats.newGroups, 0),
      commitCount: Math.max(0, ...rows.map((r) => r.stats.commitCount)),
      lastCommit: withCommit?.stats.lastCommit ?? null,
      projects: rows.map((r) => ({
        id: r.project.id,
        slug: r.project.fullPath.slice(org.length + 1),
        name: r.project.name,
      })),
    };
  }

  /** The release of one project's events, for the error page: when it was first and last seen. */
  async releaseOfProject(projectId: number, version: string) {
    const r = await this.repo.find(projectId, version);
    return r ? { release: r, stats: await this.repo.stats(r) } : null;
  }

  // Repositories and commits.

  /** The organization's projects whose code the caller may read: the repositories `--commit` and `--auto` name. */
  async repositories(actor: User, org: string, externalUrl: string): Promise<OrgRepository[]> {
    const projects = await this.orgProjectsAt(actor, org, AccessLevel.Reporter);
    return projects.map((p) => ({
      id: p.id,
      name: p.fullPath,
      url: `${externalUrl}/${p.fullPath}`,
      createdAt: p.createdAt,
    }));
  }

  /**
   * The commits of each ref, newest first: from its commit back to its previous commit (exclusive), else to the
   * previous release's head, else `DEFAULT_DEPTH` commits, read from the named svc repository.
   */
  private async commitsOfRefs(
    actor: User,
    org: string,
    release: Release,
    refs: readonly ReleaseRef[],
  ): Promise<ReleaseCommit[]> {
    const prevRelease = await this.repo.previousWithCommits([release.projectId], release);
    const prevHeads = prevRelease ? await this.repo.commits(prevRelease.id) : [];
    const out: ReleaseCommit[] = [];
    for (const ref of refs) {
      const readable = await this.repository.readable(actor, ref.repository).catch(() => null);
      if (!readable || !readable.project.fullPath.startsWith(`${org}/`))
        throw invalid(`Invalid repository names: ${ref.repository}`);
      const stop = ref.previousCommit ?? prevHeads.find((c) => c.repository === ref.repository)?.sha ?? null;
      const page = await this.repository
        .commits(actor, ref.repository, { refName: ref.commit }, { page: 1, perPage: MAX_COMMITS })
        .catch(() => null);
      if (!page || page.commits.length === 0)
        throw invalid(`Could not find the commit ${ref.commit} in ${ref.repository}`);
      let taken = 0;
      for (const c of page.commits) {
        if (stop !== null && (c.id === stop || c.id.startsWith(stop))) break;
        if (stop === null && taken >= DEFAULT_DEPTH) break;
        out.push({
          repository: ref.repository,
          sha: c.id,
          message: c.message.replace(/\n+$/, ''),
          authorName: c.authorName,
          authorEmail: c.authorEmail,
          timestamp: c.authoredDate,
        });
        taken++;
      }
    }
    return out.slice(0, MAX_COMMITS);
  }

  // Artifact bundles.

  /** `GET .../chunk-upload/`: who may upload learns the limits. */
  async chunkOptions(actor: User, org: string): Promise<ChunkLimits> {
    await this.orgProjectsAt(actor, org, AccessLevel.Developer);
    return this.limits;
  }

  /** `POST .../chunk-upload/`: chunks named by their SHA-1, kept for the caller until its assemble. */
  async uploadChunks(
    actor: User,
    org: string,
    chunks: readonly { name: string; data: Buffer }[],
  ): Promise<void> {
    await this.orgProjectsAt(actor, org, AccessLevel.Developer);
    if (chunks.length === 0) throw invalid('No chunks were sent.');
    if (chunks.length > this.limits.chunksPerRequest)
      throw invalid(
        `Too many chunks in one request: ${chunks.length}, at most ${this.limits.chunksPerRequest}.`,
      );
    for (const c of chunks) {
      if (c.data.length > this.limits.chunkSize)
        throw plainError(
          'too_large',
          `Chunk ${c.name} is ${c.data.length} bytes; chunks are at most ${this.limits.chunkSize} bytes.`,
        );
      if (sha1(c.data) !== c.name.toLowerCase())
        throw invalid(`Chunk ${c.name} does not match its checksum.`);
    }
    const now = this.clock.now();
    await this.repo.deleteChunksBefore(new Date(now.getTime() - CHUNK_TTL_MS).toISOString());
    await this.repo.putChunks(
      actor.id,
      chunks.map((c) => ({ checksum: c.name.toLowerCase(), data: c.data })),
      now.toISOString(),
    );
  }

  /**
   * `POST .../artifactbundle/assemble/`: once every chunk is there, the bundle is joined, checked against its
   * checksum, read, and stored in each project named. Assembly runs in the request: the answer is final.
   */
  async assemble(
    actor: User,
    org: string,
    input: {
      checksum: string;
      chunks: readonly string[];
      projects: readonly string[];
      version: string | null;
      dist: string | null;
    },
  ): Promise<AssembleResult> {
    if (input.projects.length === 0) throw invalid('projects: This field is required.');
    const projects = await this.namedProjects(actor, org, input.projects, AccessLevel.Developer);
    const checksum = input.checksum.toLowerCase();
    if (!SHA1.test(checksum)) throw invalid('checksum: Must be a SHA-1 checksum.');
    const chunks = input.chunks.map((c) => c.toLowerCase());
    if (chunks.some((c) => !SHA1.test(c))) throw invalid('chunks: Every chunk must be a SHA-1 checksum.');
    if (chunks.length === 0) throw invalid('chunks: This field is required.');
    if (chunks.length > this.limits.maxChunks)
      throw invalid(
        `The upload is too large: ${chunks.length} chunks of up to ${this.limits.chunkSize} bytes; ` +
          `an artifact bundle may be at most ${this.limits.maxFileSize} bytes.`,
      );
    const stored = await Promise.all(projects.map((p) => this.repo.hasBundle(p.id, checksum)));
    if (stored.every(Boolean)) return { state: 'ok', missingChunks: [], detail: null };
    const uploaded = await this.repo.uploadedChunks(actor.id, chunks);
    const missing = [...new Set(chunks.filter((c) => !uploaded.has(c)))];
    if (missing.length > 0) return { state: 'not_found', missingChunks: missing, detail: null };
    const data = await this.repo.chunkData(actor.id, chunks);
    if (!data) return { state: 'not_found', missingChunks: chunks, detail: null };
    if (data.length > this.limits.maxFileSize)
      return {
        state: 'error',
        missingChunks: [],
        detail: `The artifact bundle is larger than ${this.limits.maxFileSize} bytes.`,
      };
    if (sha1(data) !== checksum)
      return { state: 'error', missingChunks: [], detail: 'The chunks do not add up to the checksum.' };
    let bundle: ReturnType<typeof parseBundle>;
    try {
      bundle = parseBundle(data, {
        maxFiles: this.limits.maxFiles,
        maxUncompressedBytes: this.limits.maxFileSize,
      });
    } catch (err) {
      if (err instanceof BundleError) return { state: 'error', missingChunks: [], detail: err.message };
      throw err;
    }
    const now = this.clock.now().toISOString();
    for (const p of projects)
      await this.repo.insertBundle(
        p.id,
        {
          checksum,
          bundleId: bundle.bundleId,
          release: input.version ?? bundle.release,
          dist: input.dist ?? bundle.dist,
          files: bundle.files,
        },
        now,
      );
    await this.repo.deleteChunks(actor.id, chunks);
    return { state: 'ok', missingChunks: [], detail: null };
  }
}

function localCommit(c: GitCommitInput): ReleaseCommit {
  return {
    repository: c.repository ?? '',
    sha: c.id,
    message: c.message,
    authorName: c.authorName,
    authorEmail: c.authorEmail,
    timestamp: c.timestamp,
  };
}
