import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { sendJson } from './api';
import { ErrorNotice, InlineMarkdown, Timestamp } from './components';
import { Markdown } from './lazy';
import type { IssueNote } from './types';
import { useAction } from './use-action';

/** A note as alerts and issues both list them (an issue's system notes may have no author). */
type ListedNote = Pick<IssueNote, 'id' | 'system' | 'body' | 'created_at'> & {
  readonly author: { readonly name: string; readonly username: string } | null;
};

/**
 * Notes in time order: comments as Markdown (rendered safely), system notes set apart in one line. `actions`
 * adds controls after a note (an incident's "Add to timeline").
 */
export function NoteList<N extends ListedNote>({
  notes,
  actions,
  label = 'Notes',
}: {
  readonly notes: readonly N[];
  readonly actions?: (note: N) => ReactNode;
  /** The list's accessible name. */
  readonly label?: string;
}) {
  if (notes.length === 0) return <p className="muted">No activity yet.</p>;
  return (
    <ol className="timeline" aria-label={label}>
      {notes.map((note) => (
        <li key={note.id} className={note.system ? 'timeline-item system-note' : 'timeline-item'}>
          <span className="note-author" title={note.author ? `@${note.author.username}` : undefined}>
            {note.author?.name ?? 'svc'}
          </span>{' '}
          {note.system ? (
            <span className="note-body">
              <InlineMarkdown text={note.body} />
            </span>
          ) : (
            <Markdown text={note.body} className="note-body markdown note-comment" />
          )}
          <span className="muted small">
            <Timestamp value={note.created_at} />
          </span>
          {actions?.(note)}
        </li>
      ))}
    </ol>
  );
}

/** A comment box (Markdown, rendered safely) that POSTs `{ body }` to `path`. */
export function CommentForm({
  path,
  onCommented,
}: {
  readonly path: string;
  readonly onCommented: () => void;
}) {
  const id = useId();
  const [body, setBody] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (body.trim() === '') {
      action.fail('Write a comment first.');
      return;
    }
    if (await action.run(() => sendJson('POST', path, { body }))) {
      setBody('');
      onCommented();
    }
  };
  return (
    <form className="comment-form" onSubmit={(e) => void submit(e)} aria-label="Add a comment">
      <label htmlFor={id}>Comment</label>
      <textarea
        id={id}
        rows={3}
        value={body}
        placeholder="Write a comment (Markdown)"
        onChange={(e) => {
          setBody(e.target.value);
          action.reset();
        }}
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Commenting…' : 'Comment'}
        </button>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not add the comment: ${action.error}`} />}
    </form>
  );
}
