/** What a note is attached to: GitLab's `noteable_type`. */
export type NoteableType = 'MergeRequest' | 'Issue';

/** A noteable as notes need it: its table's id, its iid in the project (`noteable_iid`) and its project. */
export interface Noteable {
  readonly type: NoteableType;
  readonly id: number;
  readonly iid: number;
  readonly projectId: number;
}

/** A comment or a system note (what happened to the noteable, said by whoever did it). */
export interface Note {
  readonly id: number;
  readonly noteableType: NoteableType;
  readonly noteableId: number;
  readonly projectId: number;
  readonly authorId: number | null;
  readonly body: string;
  readonly system: boolean;
  readonly internal: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** How a noteable's notes are listed (GitLab's defaults: `created_at`, `desc`). */
export interface NoteOrder {
  readonly orderBy: 'created_at' | 'updated_at';
  readonly sort: 'asc' | 'desc';
}

/** GitLab's limit on a note's text (`Note` validates `note` at 1,000,000 characters). */
export const MAX_NOTE_LENGTH = 1_000_000;

/** Ruby's `Array#to_sentence`: "a", "a and b", "a, b, and c". */
export function toSentence(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}
