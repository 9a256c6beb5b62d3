import type { Static } from 'typebox';
import { avatarPath, userAvatarPath } from '../../avatars/avatars.js';
import type { Namespace } from '../../namespaces/namespaces.js';
import type { View } from '../common/common.presenters.js';
import type { GroupEntity, NamespaceEntity, PublicGroupEntity } from './groups.entities.js';

/** A group's uploaded avatar, or null (GitLab shows no default image for groups). */
function groupAvatarUrl(g: Namespace, v: View): string | null {
  return g.kind === 'group' && g.avatar !== null
    ? `${v.externalUrl}${avatarPath('group', g.id, g.avatar)}`
    : null;
}

export function namespace(n: Namespace, v: View): Static<typeof NamespaceEntity> {
  return {
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind,
    full_path: n.fullPath,
    parent_id: n.parentId,
    // A user namespace shows its owner's avatar (identicon included); a group its own, or null.
    avatar_url:
      n.kind === 'user' && n.ownerId !== null
        ? `${v.externalUrl}${userAvatarPath(n.ownerId, n.avatar)}`
        : groupAvatarUrl(n, v),
    web_url: n.kind === 'group' ? `${v.externalUrl}/groups/${n.fullPath}` : `${v.externalUrl}/${n.fullPath}`,
  };
}

export function group(g: Namespace, v: View): Static<typeof GroupEntity> {
  return {
    id: g.id,
    web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    full_name: g.fullPath.split('/').join(' / '),
    full_path: g.fullPath,
    parent_id: g.parentId,
    created_at: g.createdAt,
    avatar_url: groupAvatarUrl(g, v),
    request_access_enabled: g.requestAccessEnabled,
  };
}

/** GitLab's `PublicGroupDetails`. */
export function publicGroup(g: Namespace, v: View): Static<typeof PublicGroupEntity> {
  return {
    id: g.id,
    web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    name: g.name,
    avatar_url: null,
    full_name: g.fullPath.split('/').join(' / '),
    full_path: g.fullPath,
  };
}
