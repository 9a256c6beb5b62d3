import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { ProjectEntity } from '../projects/projects.entities.js';
import { SnippetEntity } from '../snippets/snippets.entities.js';

export const StorageMoveEntity = Type.Object({
  id: Int,
  created_at: Str,
  state: Str,
  source_storage_name: Str,
  destination_storage_name: Str,
  error_message: Nullable(Str),
  // GitLab's ProjectIdentity and the snippet's summary: fields of their full entities.
  project: Type.Optional(
    Nullable(
      Type.Pick(ProjectEntity, [
        'id',
        'description',
        'name',
        'name_with_namespace',
        'path',
        'path_with_namespace',
        'created_at',
      ]),
    ),
  ),
  snippet: Type.Optional(
    Nullable(Type.Pick(SnippetEntity, ['id', 'title', 'description', 'visibility', 'created_at', 'web_url'])),
  ),
  group: Type.Optional(Nullable(Type.Object({ id: Int, name: Str, full_path: Str, web_url: Str }))),
});

/** One configured repository storage with its weight and repository counts (`GET /repository_storages`). */
export const RepositoryStorageEntity = Type.Object({
  name: Str,
  path: Str,
  /** Share of new repositories, 0-100 (`repository_storages_weighted`); 0 means none. */
  weight: Int,
  projects: Int,
  snippets: Int,
  groups: Int,
});
