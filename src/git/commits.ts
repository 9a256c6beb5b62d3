/** Commits as `git log` reports them, read the one way every feature reads them. */

/** A commit as `git log` reports it. */
export interface Commit {
  readonly id: string;
  readonly parentIds: readonly string[];
  readonly title: string;
  readonly message: string;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authoredDate: string;
  readonly committerName: string;
  readonly committerEmail: string;
  readonly committedDate: string;
}

/**
 * The `--format` that `parseLog` reads: fields separated by NUL, records ended by RS (0x1e), because a message may
 * hold any other character.
 */
export const LOG_FORMAT = `${['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00')}%x1e`;

/** The commits of `git log --format=<LOG_FORMAT>` output, in its order. */
export function parseLog(out: string): Commit[] {
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r !== '')
    .map((r) => {
      const [id, parents, an, ae, ad, cn, ce, cd, body] = r.split('\0') as string[];
      const message = body!.replace(/\n+$/, '\n');
      return {
        id: id!,
        parentIds: parents ? parents.split(' ') : [],
        title: message.split('\n')[0]!,
        message,
        authorName: an!,
        authorEmail: ae!,
        authoredDate: ad!,
        committerName: cn!,
        committerEmail: ce!,
        committedDate: cd!,
      };
    });
}
