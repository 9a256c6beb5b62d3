import type { Kysely, Selectable } from 'kysely';
import { readCount, readNullableTimestamp, readTimestamp } from '../db/dialect.js';
import type { Database, SentryReleaseCommitsTable, SentryReleasesTable } from '../db/schema.js';
import type { BundleFile } from './artifact-bundle.js';
import type { Release, ReleaseCommit, ReleaseStats } from './releases.js';
import type { ArtifactFile, ArtifactLookup } from './symbolication.js';

const toRelease = (r: Selectable<SentryReleasesTable>): Release => ({
  id: r.id,
  projectId: r.project_id,
  version: r.version,
  url: r.url,
  createdAt: readTimestamp(r.created_at),
  dateReleased: readNullableTimestamp(r.date_released),
});

const toCommit = (r: Selectable<SentryReleaseCommitsTable>): ReleaseCommit => ({
  repository: r.repository,
  sha: r.sha,
  message: r.message,
  authorName: r.author_name,
  authorEmail: r.author_email,
  timestamp: readNullableTimestamp(r.timestamp),
});

/** Files a lookup returns at most (a release's files under one URL, a debug ID's files). */
const LOOKUP_LIMIT = 20;

/** Releases, their commits, artifact bundles and their files, and the chunks of uploads in progress. */
export class ReleasesRepository implements ArtifactLookup {
  constructor(private readonly db: Kysely<Database>) {}

  async find(projectId: number, version: string): Promise<Release | null> {
    const r = await this.db
      .selectFrom('sentry_releases')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('version', '=', version)
      .executeTakeFirst();
    return r ? toRelease(r) : null;
  }

  /** The release, created if the project has none of that version (a lost race finds the winner's). */
  async ensure(projectId: number, version: string, url: string | null, now: string): Promise<Release> {
    const found = await this.find(projectId, version);
    if (found) return found;
    try {
      await this.db
        .insertInto('sentry_releases')
        .values({ project_id: projectId, version, url, created_at: now, date_released: null })
        .execute();
    } catch (err) {
      if (!(await this.find(projectId, version))) throw err;
    }
    return (await this.find(projectId, version))!;
  }

  async update(id: number, change: { url?: string | null; dateReleased?: string | null }): Promise<void> {
    const set: { url?: string | null; date_released?: string | null } = {};
    if (change.url !== undefined) set.url = change.url;
    if (change.dateReleased !== undefined) set.date_released = change.dateReleased;
    if (Object.keys(set).length === 0) return;
    await this.db.updateTable('sentry_releases').set(set).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('sentry_releases').where('id', '=', id).execute();
  }

  /** The projects' releases, newest first. */
  async list(projectIds: readonly number[], limit: number): Promise<Release[]> {
    if (projectIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('sentry_releases')
      .selectAll()
      .where('project_id', 'in', projectIds)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toRelease);
  }

  /** The newest release of these projects, created before `release`, that has commits. */
  async previousWithCommits(projectIds: readonly number[], before: Release): Promise<Release | null> {
    if (projectIds.length === 0) return null;
    const r = await this.db
      .selectFrom('sentry_releases as r')
      .selectAll('r')
      .where('r.project_id', 'in', projectIds)
      .where('r.id', '!=', before.id)
      .where('r.created_at', '<=', before.createdAt)
      .where((eb) =>
        eb.exists(
          eb.selectFrom('sentry_release_commits as c').select('c.id').whereRef('c.release_id', '=', 'r.id'),
        ),
      )
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .executeTakeFirst();
    return r ? toRelease(r) : null;
  }

  /** Replaces a release's commits (newest first). */
  async setCommits(releaseId: number, commits: readonly ReleaseCommit[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sentry_release_commits').where('release_id', '=', releaseId).execute();
      if (commits.length === 0) return;
      await trx
        .insertInto('sentry_release_commits')
        .values(
          commits.map((c, position) => ({
            release_id: releaseId,
            position,
            repository: c.repository,
            sha: c.sha,
            message: c.message,
            author_name: c.authorName,
            author_email: c.authorEmail,
            timestamp: c.timestamp,
          })),
        )
        .execute();
    });
  }

  async commits(releaseId: number): Promise<ReleaseCommit[]> {
    const rows = await this.db
      .selectFrom('sentry_release_commits')
      .selectAll()
      .where('release_id', '=', releaseId)
      .orderBy('position')
      .execute();
    return rows.map(toCommit);
  }

  /** What the project's events and errors say of the release, and its commits' count and head. */
  async stats(release: Release): Promise<ReleaseStats> {
    const [events, errors, commits, head] = await Promise.all([
      this.db
        .selectFrom('error_tracking_events')
        .select((eb) => [eb.fn.min('occurred_at').as('first'), eb.fn.max('occurred_at').as('last')])
        .where('project_id', '=', release.projectId)
        .where('release', '=', release.version)
        .executeTakeFirst(),
      this.db
        .selectFrom('error_tracking_errors')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('project_id', '=', release.projectId)
        .where('first_release', '=', release.version)
        .executeTakeFirst(),
      this.db
        .selectFrom('sentry_release_commits')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('release_id', '=', release.id)
        .executeTakeFirst(),
      this.db
        .selectFrom('sentry_release_commits')
        .selectAll()
        .where('release_id', '=', release.id)
        .where('position', '=', 0)
        .executeTakeFirst(),
    ]);
    const first = events?.first as string | Date | null | undefined;
    const last = events?.last as string | Date | null | undefined;
    return {
      firstEvent: readNullableTimestamp(first ?? null),
      lastEvent: readNullableTimestamp(last ?? null),
      newGroups: readCount(errors?.n as number | string | bigint | undefined),
      commitCount: readCount(commits?.n as number | string | bigint | undefined),
      lastCommit: head ? toCommit(head) : null,
    };
  }

  // Chunks of uploads in progress, per uploading user.

  /** Which of these chunks the user has already sent. */
  async uploadedChunks(userId: number, checksums: readonly string[]): Promise<Set<string>> {
    const uploaded = new Set<string>();
    for (let i = 0; i < checksums.length; i += 500) {
      const rows = await this.db
        .selectFrom('sentry_upload_chunks')
        .select('checksum')
        .where('user_id', '=', userId)
        .where('checksum', 'in', checksums.slice(i, i + 500))
        .execute();
      for (const r of rows) uploaded.add(r.checksum);
    }
    return uploaded;
  }

  async putChunks(
    userId: number,
    chunks: readonly { checksum: string; data: Buffer }[],
    now: string,
  ): Promise<void> {
    for (const c of chunks) {
      await this.db
        .insertInto('sentry_upload_chunks')
        .values({
          user_id: userId,
          checksum: c.checksum,
          content: c.data.toString('base64'),
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['user_id', 'checksum']).doNothing())
        .execute();
    }
  }

  /** The chunks' bytes in the order given; null when one is missing. */
  async chunkData(userId: number, checksums: readonly string[]): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    for (const checksum of checksums) {
      const r = await this.db
        .selectFrom('sentry_upload_chunks')
        .select('content')
        .where('user_id', '=', userId)
        .where('checksum', '=', checksum)
        .executeTakeFirst();
      if (!r) return null;
      parts.push(Buffer.from(r.content, 'base64'));
    }
    return Buffer.concat(parts);
  }

  async deleteChunks(userId: number, checksums: readonly string[]): Promise<void> {
    for (let i = 0; i < checksums.length; i += 500)
      await this.db
        .deleteFrom('sentry_upload_chunks')
        .where('user_id', '=', userId)
        .where('checksum', 'in', checksums.slice(i, i + 500))
        .execute();
  }

  /** Chunks left behind by uploads that never assembled. */
  async deleteChunksBefore(before: string): Promise<void> {
    await this.db.deleteFrom('sentry_upload_chunks').where('created_at', '<', before).execute();
  }

  // Artifact bundles.

  async hasBundle(projectId: number, checksum: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('sentry_artifact_bundles')
      .select('id')
      .where('project_id', '=', projectId)
      .where('checksum', '=', checksum)
      .executeTakeFirst();
    return r !== undefined;
  }

  /** Stores a bundle and its files in one transaction (a repeat of the same checksum keeps the first). */
  async insertBundle(
    projectId: number,
    b: {
      checksum: string;
      bundleId: string | null;
      release: string | null;
      dist: string | null;
      files: readonly BundleFile[];
    },
    now: string,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('sentry_artifact_bundles')
        .select('id')
        .where('project_id', '=', projectId)
        .where('checksum', '=', b.checksum)
        .executeTakeFirst();
      if (existing) return;
      const { id } = await trx
        .insertInto('sentry_artifact_bundles')
        .values({
          project_id: projectId,
          checksum: b.checksum,
          bundle_id: b.bundleId,
          release: b.release,
          dist: b.dist,
          file_count: b.files.length,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const f of b.files) {
        await trx
          .insertInto('sentry_artifact_files')
          .values({
            bundle_id: id,
            project_id: projectId,
            url: f.url,
            file_type: f.type,
            debug_id: f.debugId,
            sourcemap: f.sourcemap,
            content: f.content,
          })
          .execute();
      }
    });
  }

  async byDebugId(projectId: number, debugId: string): Promise<ArtifactFile[]> {
    const rows = await this.db
      .selectFrom('sentry_artifact_files')
      .select(['id', 'url', 'file_type', 'debug_id', 'sourcemap', 'content'])
      .where('project_id', '=', projectId)
      .where('debug_id', '=', debugId)
      .orderBy('id', 'desc')
      .limit(LOOKUP_LIMIT)
      .execute();
    return rows.map(toFile);
  }

  /** Files uploaded under one of these URLs in a bundle of the release, the newest first. */
  async byUrls(projectId: number, release: string, urls: readonly string[]): Promise<ArtifactFile[]> {
    if (urls.length === 0) return [];
    const rows = await this.db
      .selectFrom('sentry_artifact_files as f')
      .innerJoin('sentry_artifact_bundles as b', 'b.id', 'f.bundle_id')
      .select(['f.id', 'f.url', 'f.file_type', 'f.debug_id', 'f.sourcemap', 'f.content'])
      .where('f.project_id', '=', projectId)
      .where('b.release', '=', release)
      .where('f.url', 'in', urls)
      .orderBy('f.id', 'desc')
      .limit(LOOKUP_LIMIT)
      .execute();
    return rows.map(toFile);
  }
}

const toFile = (r: {
  id: number;
  url: string;
  file_type: string;
  debug_id: string | null;
  sourcemap: string | null;
  content: string;
}): ArtifactFile => ({
  id: r.id,
  url: r.url,
  type: r.file_type,
  debugId: r.debug_id,
  sourcemap: r.sourcemap,
  content: r.content,
});
