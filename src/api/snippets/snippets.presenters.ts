import type { Static } from 'typebox';
import type { Snippet } from '../../snippets/snippets.js';
import { isAdmin, type View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { SnippetEntity } from './snippets.entities.js';

export function snippet(s: Snippet, v: View): Static<typeof SnippetEntity> {
  const web =
    s.projectId === null
      ? `${v.externalUrl}/-/snippets/${s.id}`
      : `${v.externalUrl}/-/project_snippets/${s.id}`;
  const raw =
    s.projectId === null
      ? `${v.externalUrl}/api/v4/snippets/${s.id}/raw`
      : `${v.externalUrl}/api/v4/projects/${s.projectId}/snippets/${s.id}/raw`;
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    visibility: s.visibility,
    author: userBasic(s.author, v),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    project_id: s.projectId,
    web_url: web,
    raw_url: raw,
    file_name: s.fileName,
    files: [{ path: s.fileName, raw_url: raw }],
    ...(isAdmin(v) && { repository_storage: s.repositoryStorage }),
  };
}
