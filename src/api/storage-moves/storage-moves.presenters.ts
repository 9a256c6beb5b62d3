import type { Static } from 'typebox';
import type { Namespace } from '../../namespaces/namespaces.js';
import type { Project } from '../../projects/projects.js';
import type { Snippet } from '../../snippets/snippets.js';
import type { StorageMove } from '../../storage-moves/storage-moves.js';
import type { View } from '../common/common.presenters.js';
import { project } from '../projects/projects.presenters.js';
import { snippet } from '../snippets/snippets.presenters.js';
import type { StorageMoveEntity } from './storage-moves.entities.js';

/** A storage move with its container's summary (GitLab: ProjectIdentity, snippet or group). */
export function storageMove(
  m: StorageMove,
  container: Project | Snippet | Namespace | null,
  v: View,
): Static<typeof StorageMoveEntity> {
  const base = {
    id: m.id,
    created_at: m.createdAt,
    state: m.state,
    source_storage_name: m.sourceStorageName,
    destination_storage_name: m.destinationStorageName,
    error_message: m.errorMessage,
  };
  if (m.containerType === 'project') {
    const p = container as Project | null;
    const shown = p && project(p, v);
    return {
      ...base,
      project: shown && {
        id: shown.id,
        description: shown.description,
        name: shown.name,
        name_with_namespace: shown.name_with_namespace,
        path: shown.path,
        path_with_namespace: shown.path_with_namespace,
        created_at: shown.created_at,
      },
    };
  }
  if (m.containerType === 'snippet') {
    const s = container as Snippet | null;
    const shown = s && snippet(s, v);
    return {
      ...base,
      snippet: shown && {
        id: shown.id,
        title: shown.title,
        description: shown.description,
        visibility: shown.visibility,
        created_at: shown.created_at,
        web_url: shown.web_url,
      },
    };
  }
  const g = container as Namespace | null;
  return {
    ...base,
    group: g && {
      id: g.id,
      name: g.name,
      full_path: g.fullPath,
      web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    },
  };
}
