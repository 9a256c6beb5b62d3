import type { Static } from 'typebox';
import type {
  AssembleResult,
  ChunkLimits,
  OrgRelease,
  OrgRepository,
  ReleaseCommit,
} from '../../error-tracking/releases.js';
import type { SentryCommitEntity, SentryReleaseEntity } from './sentry-api.entities.js';

/** Sentry's answers for sentry-cli (`/api/0/`), in the shapes its `src/api` reads. */

export function commit(c: ReleaseCommit): Static<typeof SentryCommitEntity> {
  return {
    id: c.sha,
    message: c.message,
    dateCreated: c.timestamp,
    repository: c.repository,
    author: c.authorName || c.authorEmail ? { name: c.authorName, email: c.authorEmail } : null,
  };
}

export function release(r: OrgRelease): Static<typeof SentryReleaseEntity> {
  return {
    version: r.version,
    shortVersion: r.version,
    ref: null,
    url: r.url,
    status: 'open',
    dateCreated: r.createdAt,
    dateStarted: null,
    dateReleased: r.dateReleased,
    firstEvent: r.firstEvent,
    lastEvent: r.lastEvent,
    newGroups: r.newGroups,
    commitCount: r.commitCount,
    lastCommit: r.lastCommit ? commit(r.lastCommit) : null,
    authors: [],
    deployCount: 0,
    lastDeploy: null,
    data: {},
    owner: null,
    projects: r.projects.map((p) => ({
      id: p.id,
      slug: p.slug,
      name: p.name,
      newGroups: null,
      platform: null,
      platforms: [],
      hasHealthData: false,
    })),
  };
}

export function repository(r: OrgRepository) {
  return {
    id: String(r.id),
    name: r.name,
    url: r.url,
    // sentry-cli matches `--auto` remotes only for providers it knows; svc speaks GitLab's URLs.
    provider: { id: 'integrations:gitlab', name: 'GitLab' },
    status: 'active',
    dateCreated: r.createdAt,
    integrationId: null,
    externalSlug: r.name,
  };
}

export function chunkOptions(org: string, l: ChunkLimits) {
  return {
    // Relative: sentry-cli joins it to the URL it was given (SENTRY_URL), which is how it reached svc.
    url: `/api/0/organizations/${encodeURIComponent(org)}/chunk-upload/`,
    chunkSize: l.chunkSize,
    chunksPerRequest: l.chunksPerRequest,
    maxFileSize: l.maxFileSize,
    maxRequestSize: l.maxRequestSize,
    concurrency: 2,
    maxWait: 60,
    hashAlgorithm: 'sha1',
    compression: ['gzip'],
    accept: ['release_files', 'artifact_bundles', 'sources'],
  };
}

export function assemble(r: AssembleResult) {
  return { state: r.state, missingChunks: r.missingChunks, detail: r.detail };
}
