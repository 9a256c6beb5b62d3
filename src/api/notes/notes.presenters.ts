import type { Static } from 'typebox';
import type { NoteView } from '../../notes/notes.service.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { NoteEntity } from './notes.entities.js';

/** A note as GitLab's Note entity. */
export function note(n: NoteView, v: View): Static<typeof NoteEntity> {
  return {
    id: n.id,
    type: null,
    body: n.body,
    attachment: null,
    author: n.author ? userBasic(n.author, v) : null,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
    system: n.system,
    noteable_id: n.noteableId,
    noteable_type: n.noteableType,
    project_id: n.projectId,
    noteable_iid: n.noteableIid,
    resolvable: false,
    confidential: n.internal,
    internal: n.internal,
    imported: false,
    imported_from: 'none',
    commands_changes: {},
  };
}
