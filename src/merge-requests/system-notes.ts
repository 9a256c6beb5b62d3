import { toSentence } from '../notes/notes.js';
import { escapeHtml } from '../notifications/notifications.js';
import type { User } from '../users/users.js';

/**
 * The texts of the system notes merge requests get, as GitLab words them (`SystemNotes::MergeRequestsService`,
 * `IssuablesService`, `CommitService`, and EE's approvals).
 */
export const SystemNoteText = {
  approved: 'approved this merge request',
  unapproved: 'unapproved this merge request',
  merged: 'merged',
  closed: 'closed',
  reopened: 'reopened',

  /** `reset_approvals_on_push`: "reset approvals from @a, @b, and @c by pushing to the branch". */
  approvalsReset(approvers: readonly Pick<User, 'username'>[]): string {
    return `reset approvals from ${toSentence(approvers.map((u) => `@${u.username}`))} by pushing to the branch`;
  },

  /**
   * A push that added commits: their count, each as "<short sha> - <title>" (newest first, as git lists them), and
   * the link to compare with the previous version. Titles are escaped, as GitLab's `content_tag` does.
   */
  commitsAdded(commits: readonly { id: string; title: string }[], comparePath: string): string {
    const n = commits.length;
    const items = commits.map((c) => `<li>${c.id.slice(0, 8)} - ${escapeHtml(c.title)}</li>`).join('');
    return `added ${n} commit${n === 1 ? '' : 's'}\n\n<ul>${items}</ul>\n\n[Compare with previous version](${comparePath})`;
  },
};
